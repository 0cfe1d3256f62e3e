/**
 * Throughput of the in-memory Temporal stand-in: workflows of one activity each, run by
 * one worker. The stand-in runs in its own process (as `createLocal` launches it).
 */
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { Worker, bundleWorkflowCode, NativeConnection } from '@temporalio/worker';
import { STAND_IN_DEV_SERVER, startDevServer } from '../runtime/temporal';
import { round, type BenchReport } from './report';

const WARMUP = 50;
const WORKFLOWS = 1000;
const IN_FLIGHT = 200;

export async function run(): Promise<BenchReport> {
  const server = await startDevServer(STAND_IN_DEV_SERVER, 'default', 'stand-in');
  const noop = (): void => {};
  const logger = { trace: noop, debug: noop, info: noop, warn: noop, error: noop, log: noop };
  try {
    const workflowBundle = await bundleWorkflowCode({ workflowsPath: path.join(__dirname, '../test/temporal-conformance/workflows.ts'), logger });
    const connection = await Connection.connect({ address: server.address });
    const nativeConnection = await NativeConnection.connect({ address: server.address });
    const client = new Client({ connection });
    const taskQueue = 'bench';
    const worker = await Worker.create({
      connection: nativeConnection,
      taskQueue,
      workflowBundle,
      activities: { echo: (value: string) => Promise.resolve(`echo:${value}`) },
      maxConcurrentWorkflowTaskExecutions: 100,
      maxConcurrentActivityTaskExecutions: 200,
    });
    const runBatch = async (prefix: string, count: number): Promise<number> => {
      let next = 0;
      const started = Date.now();
      const lane = async (): Promise<void> => {
        while (next < count) {
          const i = next++;
          const result = await client.workflow.execute('oneActivity', { taskQueue, workflowId: `${prefix}-${i}`, args: [String(i)] });
          if (result !== `echo:${i}`) throw new Error(`unexpected result ${String(result)}`);
        }
      };
      await Promise.all(Array.from({ length: Math.min(IN_FLIGHT, count) }, lane));
      return (Date.now() - started) / 1000;
    };
    let seconds = 0;
    await worker.runUntil(async () => {
      await runBatch('warmup', WARMUP);
      seconds = await runBatch('bench', WORKFLOWS);
    });
    await connection.close();
    await nativeConnection.close();
    const perSecond = WORKFLOWS / seconds;
    return {
      name: 'Temporal stand-in throughput (one-activity workflows, one worker)',
      figures: {
        workflows: WORKFLOWS,
        'in flight': IN_FLIGHT,
        'seconds': round(seconds, 2),
        'workflows/s': round(perSecond, 1),
      },
      targets: [{ label: '>= 100 workflows/s', met: perSecond >= 100 }],
    };
  } finally {
    await server.stop();
  }
}
