/**
 * The stand-in: an in-memory Temporal frontend (WorkflowService, plus TestService in
 * time-skipping mode) on a gRPC port. Used by the bin/ executables and usable in-process.
 */
import { Server } from '@grpc/grpc-js';
import { Engine } from './engine';
import { indexedValueType } from './namespaces';
import { implementation, listen, serviceDefinition } from './grpc-server';
import { testServiceHandlers } from './test-service';
import { operatorServiceHandlers } from './operator-service';
import { workflowServiceHandlers } from './workflow-service';
import { ScheduleRunner } from './schedule-runner';

export interface StandInOptions {
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  namespaces?: string[];
  /** Custom search attributes to register in every namespace (`--search-attribute Name=Type`). */
  searchAttributes?: Array<[string, string]>;
  /** Serve TestService and skip time (the time-skipping test server's behaviour). */
  timeSkipping?: boolean;
  pollTimeoutMs?: number;
  longPollTimeoutMs?: number;
  log?: (message: string) => void;
}

export class StandInServer {
  private constructor(
    readonly engine: Engine,
    private readonly server: Server,
    readonly address: string,
    readonly port: number,
    private readonly schedules: ScheduleRunner,
  ) {}

  static async start(options: StandInOptions = {}): Promise<StandInServer> {
    const log = options.log ?? ((message: string) => console.error(`[temporal-stand-in] ${message}`));
    const engine = new Engine({
      timeSkipping: options.timeSkipping ?? false,
      pollTimeoutMs: options.pollTimeoutMs ?? 60_000,
      longPollTimeoutMs: options.longPollTimeoutMs ?? 20_000,
    });
    for (const namespace of options.namespaces ?? []) engine.namespaces.register(namespace);
    for (const info of engine.namespaces.list()) {
      for (const [name, type] of options.searchAttributes ?? []) info.searchAttributes.set(name, indexedValueType(type));
    }
    const schedules = new ScheduleRunner(engine);
    const server = new Server({ 'grpc.max_receive_message_length': 128 * 1024 * 1024, 'grpc.max_send_message_length': 128 * 1024 * 1024 });
    server.addService(
      serviceDefinition('temporal.api.workflowservice.v1.WorkflowService'),
      implementation(workflowServiceHandlers(engine, { serverVersion: '1.29.0', schedules }), log),
    );
    server.addService(
      serviceDefinition('temporal.api.operatorservice.v1.OperatorService'),
      implementation(operatorServiceHandlers(engine), log),
    );
    if (options.timeSkipping) {
      server.addService(serviceDefinition('temporal.api.testservice.v1.TestService'), implementation(testServiceHandlers(engine), log));
    }
    const host = options.host ?? '127.0.0.1';
    const port = await listen(server, host, options.port ?? 0);
    return new StandInServer(engine, server, `${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`, port, schedules);
  }

  async stop(): Promise<void> {
    this.schedules.stop();
    this.engine.clock.stop();
    this.engine.queues.close();
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.server.forceShutdown();
        resolve();
      }, 2000);
      this.server.tryShutdown(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}
