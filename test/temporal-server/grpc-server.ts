/**
 * gRPC bootstrap: generic service definitions built from the protos shipped in
 * @temporalio/proto, and a wrapper turning async handlers into grpc-js unary calls.
 */
import {
  Server,
  ServerCredentials,
  status,
  type MethodDefinition,
  type ServerUnaryCall,
  type ServiceDefinition,
  type sendUnaryData,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { ServiceError } from './errors';
import { lookupType, root } from './proto';

export interface CallContext {
  /** Real milliseconds until the client's deadline (Infinity when none). */
  remainingMs(): number;
  onCancel(listener: () => void): void;
  isCancelled(): boolean;
}

export type Handler = (request: unknown, ctx: CallContext) => Promise<object> | object;

export function serviceDefinition(fullName: string): ServiceDefinition {
  const service = root.lookupService(fullName);
  const definition: Record<string, MethodDefinition<object, object>> = {};
  for (const method of Object.values(service.methods)) {
    method.resolve();
    const requestType = lookupType(method.resolvedRequestType?.fullName ?? method.requestType);
    const responseType = lookupType(method.resolvedResponseType?.fullName ?? method.responseType);
    definition[method.name] = {
      path: `/${fullName}/${method.name}`,
      requestStream: false,
      responseStream: false,
      requestSerialize: (value: object) => Buffer.from(requestType.encode(value).finish()),
      requestDeserialize: (bytes: Buffer) => requestType.decode(bytes),
      responseSerialize: (value: object) => Buffer.from(responseType.encode(value).finish()),
      responseDeserialize: (bytes: Buffer) => responseType.decode(bytes),
      originalName: method.name,
    };
  }
  return definition;
}

function contextOf(call: ServerUnaryCall<unknown, unknown>): CallContext {
  let cancelled = false;
  const listeners: Array<() => void> = [];
  call.on('cancelled', () => {
    cancelled = true;
    for (const listener of listeners.splice(0)) listener();
  });
  return {
    remainingMs: () => {
      const deadline = call.getDeadline();
      const at = deadline instanceof Date ? deadline.getTime() : Number(deadline);
      return Number.isFinite(at) ? at - Date.now() : Infinity;
    },
    onCancel: (listener) => {
      if (cancelled) listener();
      else listeners.push(listener);
    },
    isCancelled: () => cancelled || call.cancelled,
  };
}

export function implementation(handlers: Record<string, Handler>, log: (message: string) => void): UntypedServiceImplementation {
  const impl: UntypedServiceImplementation = {};
  for (const [name, handler] of Object.entries(handlers)) {
    impl[name] = (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => {
      const ctx = contextOf(call);
      let result: Promise<object>;
      try {
        result = Promise.resolve(handler(call.request, ctx));
      } catch (error) {
        result = Promise.reject(error instanceof Error ? error : new Error(String(error)));
      }
      result.then(
        (response) => callback(null, response),
        (error: unknown) => {
          if (error instanceof ServiceError) {
            callback({ code: error.code, details: error.message, metadata: error.metadata() });
          } else {
            log(`${name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
            callback({ code: status.INTERNAL, details: error instanceof Error ? error.message : String(error) });
          }
        },
      );
    };
  }
  return impl;
}

export async function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.bindAsync(`${host}:${port}`, ServerCredentials.createInsecure(), (error, boundPort) => {
      if (error) reject(error);
      else resolve(boundPort);
    });
  });
}
