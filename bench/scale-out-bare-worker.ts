/**
 * One bare Temporal worker process for the scale-out bench (scale-out.bench.ts starts three,
 * as the project runs three worker processes): TS SDK defaults, the bare workflows
 * (bare-temporal-workflows.ts) from a bundle the bench built once, the call activity, on the
 * bench's own task queue of the cluster's Temporal server. Says `ready` over IPC once
 * polling; stops when the bench disconnects or on SIGTERM.
 *
 * Arguments: <temporal address> <namespace> <task queue> <bundle file>
 */
import { NativeConnection, Worker } from '@temporalio/worker';
import { createLogger } from '../config/logger';
import { installTemporalRuntime } from '../worker/worker';
import { bareActivities } from './bare-activities';

async function main(): Promise<void> {
  const [address, namespace, taskQueue, codePath] = process.argv.slice(2);
  installTemporalRuntime(createLogger('error'));
  const connection = await NativeConnection.connect({ address });
  const worker = await Worker.create({ connection, namespace, taskQueue, workflowBundle: { codePath }, activities: bareActivities });
  const stop = () => {
    if (worker.getState() === 'RUNNING') worker.shutdown();
  };
  process.on('disconnect', stop);
  process.on('SIGTERM', stop);
  const running = worker.run();
  process.send?.('ready');
  await running;
  await connection.close();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
