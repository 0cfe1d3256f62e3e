/**
 * Process entry of the stand-in executables.
 *   main.ts dev  server start-dev --port N --namespace X --ip IP …   (Temporal CLI dev server arguments)
 *   main.ts test <port> …                                            (time-skipping test server arguments)
 * Unknown flags are ignored. Prints the address once listening; stops on SIGINT/SIGTERM.
 */
import { StandInServer } from './server';

interface Parsed {
  timeSkipping: boolean;
  port: number;
  host: string;
  namespaces: string[];
}

export function parseArgs(argv: string[]): Parsed {
  const [mode, ...rest] = argv;
  if (mode === 'test') {
    const port = rest.find((arg) => /^\d+$/.test(arg));
    return { timeSkipping: true, port: port ? Number(port) : 7233, host: '127.0.0.1', namespaces: [] };
  }
  const parsed: Parsed = { timeSkipping: false, port: 7233, host: '127.0.0.1', namespaces: [] };
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    if (!arg.startsWith('-')) continue;
    const eq = arg.indexOf('=');
    const name = (eq >= 0 ? arg.slice(0, eq) : arg).replace(/^-+/, '');
    let value: string | undefined;
    if (eq >= 0) value = arg.slice(eq + 1);
    else if (i + 1 < rest.length && !rest[i + 1].startsWith('-')) value = rest[++i];
    if (value === undefined) continue;
    if (name === 'port' || name === 'p') parsed.port = Number(value);
    else if (name === 'ip') parsed.host = value;
    else if (name === 'namespace' || name === 'n') parsed.namespaces.push(value);
  }
  return parsed;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const server = await StandInServer.start({
    host: args.host,
    port: args.port,
    namespaces: args.namespaces,
    timeSkipping: args.timeSkipping,
  });
  console.log(`Temporal stand-in (${args.timeSkipping ? 'time-skipping test server' : 'dev server'}) listening on ${server.address}; namespaces: ${['default', ...args.namespaces].join(', ')}`);
  const stop = (): void => {
    void server.stop().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
