/**
 * Starts the benches' HTTP client (end-to-end-client.ts) in a process of its own, aimed at
 * the API by `target`; one round at a time over IPC. Used by end-to-end.bench.ts and
 * scale-out.bench.ts.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import type { ClientResult, ClientRound } from './end-to-end-client';

export type ClientProcess = ReturnType<typeof startClient>;

export function startClient() {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'end-to-end-client.ts')], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const client = {
    pid: child.pid,
    target: undefined as { port: number; token: string } | undefined,
    round(round: Omit<ClientRound, 'port' | 'token'>): Promise<ClientResult> {
      if (!client.target) throw new Error('the client has no target');
      const message: ClientRound = { ...round, ...client.target };
      return new Promise((resolve, reject) => {
        const exited = (code: number | null) => reject(new Error(`the bench client exited (${code})`));
        child.once('exit', exited);
        child.once('message', (result: ClientResult) => {
          child.off('exit', exited);
          if (result.error) reject(new Error(result.error));
          else resolve(result);
        });
        child.send(message);
      });
    },
    stop: () => child.connected && child.disconnect(),
  };
  return client;
}
