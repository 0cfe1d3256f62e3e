#!/usr/bin/env node
/**
 * `platform-workflow`: author, validate, test locally and publish workflows.
 *
 *   validate <files|dirs…>                    every definition, errors as file:line:col message
 *   run <file> [--inputs JSON|@file] …        a local run through the kit (stubs, vars, secrets, signals)
 *   run --from-export FILE                    an execution export replayed locally and compared with the recorded run
 *   run <key> [--inputs …] [--alias A]        a run on the server, waited for to its end
 *   publish <files|dirs…> [--alias A [--no-activate]] [--activate] [--stub type=module.js]
 *   diff <file> [--alias A | --revision N]     the published text against the file: "same" (0) or a unified diff (1)
 *   execute <key> [--inputs …] [--follow]     logs <executionId> [--follow]
 *   signal <executionId> <name> [--payload …] config set|list
 *
 * Server and token: --url/--token, else PLATFORM_API_URL and PLATFORM_API_TOKEN; without a token,
 * an API key in PLATFORM_API_KEY is exchanged at POST /token.
 */
import { parseArgs } from 'node:util';
import { createClient } from './client';
import { diffCommand } from './diff-command';
import { localEgress } from './egress';
import { cliEnvironment } from './environment';
import { runCommand, validateCommand } from './local-commands';
import { CliError, EXIT, createOutput, type Output } from './output';
import { publishCommand } from './publish-command';
import { replayCommand } from './replay-command';
import { configCommand, executeCommand, logsCommand, signalCommand } from './remote-commands';
import { checkRunOptions, isWorkflowFile, remoteRunCommand } from './remote-run';

const USAGE = `usage: platform-workflow <command> [options]

local (no server):
  validate <files|dirs…> [--stub type=module.js]
  run <file> [--inputs JSON|@file] [--vars JSON|@file] [--secrets JSON|@file]
             [--signals JSON|@file] [--stub type=module.js]… [--workflows DIR]
             [--trigger STEP] [--clock instant|real] [--json]
             [--allow-egress CIDR[,CIDR…]]… [--allow-loopback]
             (the real http-request, paginated-fetch and code-exec keep the server's
              egress policy, loopback and private ranges closed: these open ranges,
              as EGRESS_ALLOW_CIDRS does, read from the environment too)
  run --from-export EXPORT [--vars JSON|@file] [--json]
             (replays an execution export (GET /workflows/executions/{id}/export):
              effectful steps answer from the recording; exit 1 on a divergence)
  run <file> --stub-from-export EXPORT
             (your changed definition, run against the export's recorded inputs and responses)

against a server (--url/--token or PLATFORM_API_URL/PLATFORM_API_TOKEN; without a token,
                   an API key in PLATFORM_API_KEY, exchanged for one):
  run <key> [--inputs JSON|@file] [--alias NAME] [--json]
             (a key, not a file: executes on the server and waits for the end)
  publish <files|dirs…> [--alias NAME [--no-activate]] [--activate] [--stub type=module.js]…
             (--alias moves NAME to the new revision and activates it;
              --activate alone activates latest; a file that needs a stubbed
              plugin the server does not have is skipped, not refused)
  diff <file> [--alias NAME | --revision N]
             (the text the revision was published from against the file:
              prints "same" and exits 0, or a unified diff and exits 1;
              default: the revision latest points at)
  execute <key> [--inputs JSON|@file] [--alias NAME] [--follow] [--json]
  logs <executionId> [--follow]
  signal <executionId> <name> [--payload JSON|@file]
  config set <name> <value> [--secret] [--path /folder [--nrn NRN] | --workflow KEY]
  config list [--path /folder | --workflow KEY] [--ancestors]

exit codes: 0 ok, 1 invalid or failed, 2 usage, 3 server unreachable, 4 unauthorized, 5 conflict (409)`;

const OPTIONS = {
  url: { type: 'string' },
  token: { type: 'string' },
  inputs: { type: 'string' },
  vars: { type: 'string' },
  secrets: { type: 'string' },
  signals: { type: 'string' },
  stub: { type: 'string', multiple: true },
  'from-export': { type: 'string' },
  'stub-from-export': { type: 'string' },
  workflows: { type: 'string' },
  trigger: { type: 'string' },
  clock: { type: 'string' },
  'allow-egress': { type: 'string', multiple: true },
  'allow-loopback': { type: 'boolean' },
  json: { type: 'boolean' },
  alias: { type: 'string' },
  activate: { type: 'boolean' },
  follow: { type: 'boolean', short: 'f' },
  payload: { type: 'string' },
  secret: { type: 'boolean' },
  path: { type: 'string' },
  workflow: { type: 'string' },
  ancestors: { type: 'boolean' },
  nrn: { type: 'string' },
  revision: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export async function main(argv: string[], io: Output): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, allowNegative: true, strict: true });
  } catch (error) {
    throw new CliError(`${(error as Error).message}\n\n${USAGE}`, EXIT.usage);
  }
  const { values, positionals } = parsed;
  const [command, ...args] = positionals;
  if (values.help || !command) {
    io.out(USAGE);
    return command || values.help ? EXIT.ok : EXIT.usage;
  }
  const environment = cliEnvironment();
  const api = () => createClient(values.url ?? environment.url, values.token ?? environment.token, environment.apiKey);
  switch (command) {
    case 'validate':
      return validateCommand(args, values, io);
    case 'run':
      if (values['from-export'] !== undefined || values['stub-from-export'] !== undefined) return replayCommand(args[0], values, io);
      // A file (.yaml, .yml, .json, or a path) runs locally; a workflow key runs on the server.
      if (args[0] !== undefined) checkRunOptions(args[0], values);
      return args[0] === undefined || isWorkflowFile(args[0])
        ? runCommand(args[0], { ...values, egress: localEgress(values, environment) }, io)
        : remoteRunCommand(api(), args[0], values, io);
    case 'publish':
      return publishCommand(api(), args, values, io);
    case 'diff':
      return diffCommand(api(), args[0], values, io);
    case 'execute':
      return executeCommand(api(), args[0], values, io);
    case 'logs':
      return logsCommand(api(), args[0], values, io);
    case 'signal':
      return signalCommand(api(), args[0], args[1], values, io);
    case 'config':
      return configCommand(api(), args, values, io);
    default:
      throw new CliError(`unknown command "${command}"\n\n${USAGE}`, EXIT.usage);
  }
}

if (require.main === module) {
  const io = createOutput({ noColor: cliEnvironment().noColor });
  main(process.argv.slice(2), io).then(
    (code) => process.exit(code),
    (error: unknown) => {
      if (error instanceof CliError) {
        io.err(`platform-workflow: ${error.message}`);
        process.exit(error.exitCode);
      }
      io.err(`platform-workflow: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      process.exit(EXIT.failed);
    },
  );
}
