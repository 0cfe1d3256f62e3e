/**
 * Throughput of the in-memory Temporal stand-in: workflows of one activity each, run by
 * one worker. The stand-in runs in its own process (as `createLocal` launches it). Workflows are
 * started with at most IN_FLIGHT unfinished; completion is observed through the visibility count.
 */
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { Worker, bundleWorkflowCode, NativeConnection } from '@temporalio/worker';
import { STAND_IN_DEV_SERVER, startDevServer } from '../startup/temporal';
import { round, type BenchReport } from './report';
import { FULL_SIZE, sized, type BenchOptions } from './size';

const IN_FLIGHT = 400;

export async function run(options: BenchOptions = FULL_SIZE): Promise<BenchReport> {
  const warmUp = sized(options, 50, 10);
  const workflows = sized(options, 1000, 50);
  const server = await startDevServer(STAND_IN_DEV_SERVER, 'default', 'stand-in');
  const noop = (): void => {};
  const logger = { trace: noop, debug: noop, info: noop, warn: noop, error: noop, log: noop };
  try {
    const workflowBundle = await bundleWorkflowCode({
      workflowsPath: path.join(__dirname, '../test/temporal-conformance/workflows.ts'),
      logger,
    });
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
      maxConcurrentWorkflowTaskPolls: 8,
      maxConcurrentActivityTaskPolls: 4,
    });
    /** Starts `count` workflows (at most IN_FLIGHT unfinished at a time) and waits until all completed. */
    const runBatch = async (prefix: string, count: number): Promise<number> => {
      const started = Date.now();
      let launched = 0;
      let completed = 0;
      const completedCount = async (): Promise<number> =>
        (await client.workflow.count(`WorkflowId STARTS_WITH '${prefix}-' AND ExecutionStatus = 'Completed'`)).count;
      while (completed < count) {
        const batch: Array<Promise<unknown>> = [];
        while (launched < count && launched - completed < IN_FLIGHT) {
          const i = launched++;
          batch.push(client.workflow.start('oneActivity', { taskQueue, workflowId: `${prefix}-${i}`, args: [String(i)] }));
        }
        await Promise.all(batch);
        await new Promise((resolve) => setTimeout(resolve, 20));
        completed = await completedCount();
      }
      const seconds = (Date.now() - started) / 1000;
      for (const i of [0, Math.floor(count / 2), count - 1]) {
        const result: unknown = await client.workflow.getHandle(`${prefix}-${i}`).result();
        if (result !== `echo:${i}`) throw new Error(`unexpected result ${String(result)}`);
      }
      return seconds;
    };
    let seconds = 0;
    await worker.runUntil(async () => {
      await runBatch('warmup', warmUp);
      seconds = await runBatch('bench', workflows);
    });
    await connection.close();
    await nativeConnection.close();
    const perSecond = workflows / seconds;
    return {
      name: 'Temporal stand-in throughput (one-activity workflows, one worker)',
      figures: {
        workflows,
        'in flight': IN_FLIGHT,
        seconds: round(seconds, 2),
        'workflows/s': round(perSecond, 1),
      },
      targets: [{ label: '>= 100 workflows/s', met: perSecond >= 100 }],
    };
  } finally {
    await server.stop();
  }
}
