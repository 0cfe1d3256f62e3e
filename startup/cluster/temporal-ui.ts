/**
 * The Temporal Web UI server of the production shape (the `temporalio/ui`
 * image in docker-compose.yml; here the same ui-server release the pinned CLI
 * embeds, built by scripts/install-temporal-server), pointed at the server.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { startChild, type RunningChild } from './children';

export interface TemporalUiOptions {
  uiServer: string;
  temporalAddress: string;
  namespace: string;
  port: number;
  dir: string;
  logDir: string;
  onUnexpectedExit?: (child: RunningChild, code: number | null) => void;
}

export function startTemporalUi(options: TemporalUiOptions): RunningChild {
  const configDir = path.join(options.dir, 'config');
  mkdirSync(configDir, { recursive: true });
  writeFileSync(
    path.join(configDir, 'cluster.yaml'),
    YAML.stringify({
      temporalGrpcAddress: options.temporalAddress,
      host: '127.0.0.1',
      port: options.port,
      enableUi: true,
      defaultNamespace: options.namespace,
      notifyOnNewVersion: false,
      refreshInterval: '1m',
      cors: { allowOrigins: [`http://127.0.0.1:${options.port}`, `http://localhost:${options.port}`], cookieInsecure: true },
      auth: { enabled: false },
    }),
  );
  return startChild(
    { name: 'temporal-ui', command: options.uiServer, args: ['--root', options.dir, '--config', 'config', '--env', 'cluster', 'start'] },
    options.logDir,
    options.onUnexpectedExit,
  );
}
