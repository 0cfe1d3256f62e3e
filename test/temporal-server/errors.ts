/** gRPC errors the stand-in returns, with Temporal's typed details where the SDK reads them. */
import { Metadata, status } from '@grpc/grpc-js';
import { google, lookupType, packAny } from './proto';

export class ServiceError extends Error {
  constructor(
    readonly code: status,
    message: string,
    readonly details: google.protobuf.IAny[] = [],
  ) {
    super(message);
    this.name = 'ServiceError';
  }

  /** Trailer metadata carrying `google.rpc.Status` when typed details exist. */
  metadata(): Metadata | undefined {
    if (this.details.length === 0) return undefined;
    const metadata = new Metadata();
    const type = lookupType('google.rpc.Status');
    const body = type.encode(type.fromObject({ code: this.code, message: this.message, details: this.details })).finish();
    metadata.set('grpc-status-details-bin', Buffer.from(body));
    return metadata;
  }
}

export const notFound = (message: string): ServiceError => new ServiceError(status.NOT_FOUND, message);
export const invalidArgument = (message: string): ServiceError => new ServiceError(status.INVALID_ARGUMENT, message);
export const deadlineExceeded = (message: string): ServiceError => new ServiceError(status.DEADLINE_EXCEEDED, message);
export const failedPrecondition = (message: string): ServiceError => new ServiceError(status.FAILED_PRECONDITION, message);
export const unimplemented = (message: string): ServiceError => new ServiceError(status.UNIMPLEMENTED, message);

export function alreadyStarted(message: string, startRequestId: string, runId: string): ServiceError {
  return new ServiceError(status.ALREADY_EXISTS, message, [
    packAny('temporal.api.errordetails.v1.WorkflowExecutionAlreadyStartedFailure', { startRequestId, runId }),
  ]);
}

export function namespaceNotFound(namespace: string): ServiceError {
  return new ServiceError(status.NOT_FOUND, `Namespace ${namespace} is not found.`, [
    packAny('temporal.api.errordetails.v1.NamespaceNotFoundFailure', { namespace }),
  ]);
}

export const workflowCompleted = (): ServiceError => notFound('workflow execution already completed');
