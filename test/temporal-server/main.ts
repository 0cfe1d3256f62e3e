/**
 * Process entry of the stand-in executables.
 *   main.ts dev  server start-dev --port N --namespace X --ip IP …   (Temporal CLI dev server arguments)
 *   main.ts test <port> …                                            (time-skipping test server arguments)
 * Unknown flags are ignored; `--poll-timeout <ms>` shortens empty task-queue polls (default 60 s).
 * Prints the address once listening; stops on SIGINT/SIGTERM.
 */
import { parseArgs } from './args';
import { StandInServer } from './server';

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const server = await StandInServer.start({
    host: args.host,
    port: args.port,
    namespaces: args.namespaces,
    timeSkipping: args.timeSkipping,
    pollTimeoutMs: args.pollTimeoutMs,
    searchAttributes: args.searchAttributes,
  });
  if (!args.quiet) {
    const namespaces = [...new Set(['default', ...args.namespaces])].join(', ');
    console.log(`Temporal stand-in (dev server) listening on ${server.address}; namespaces: ${namespaces}`);
  }
  const stop = (): void => {
    void server.stop().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  // a bug in one request must not take the whole in-memory server (and every execution) down
  process.on('uncaughtException', (error) => console.error('[temporal-stand-in] uncaught exception', error));
  process.on('unhandledRejection', (error) => console.error('[temporal-stand-in] unhandled rejection', error));
  // do not outlive the process that launched us (an orphaned in-memory server is useless)
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) stop();
  }, 1000).unref();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
