/**
 * `run <key>`: executes a published workflow on the server and waits for its
 * end, as the compatible engine's `run KEY --inputs JSON` does; `run <file>`
 * stays the local run (./local-commands.ts). A target ending in `.yaml`,
 * `.yml` or `.json`, or holding a `/`, is a file; anything else is a
 * workflow key (or `wf_…` id): neither a key nor an id can have either.
 *
 * The wait is the API's `GET /workflows/executions/{id}?wait=`, which holds
 * the request while the execution runs and answers once it ended or waits on
 * a signal. While it waits on a signal (the API then answers at once) the
 * command says which signal and how to send it, and reads again every few
 * seconds until someone does or the wait times out.
 */
import { ApiRefusal, type ApiClient } from './client';
import { CliError, EXIT, type Output } from './output';
import { allLogs, FINISHED, formatLog, printEnd } from './remote-commands';
import { jsonObject } from './values';

/** Held per read: below the client's 30 s request timeout, within the server's default ceiling (EXECUTION_WAIT_MAX_SECONDS, 60). */
const WAIT_SECONDS = 20;
/** Reads while the execution waits on a signal, when `?wait=` answers at once. */
const WAITING_RECHECK_MS = 2000;

/** The options only a local run takes, and the one only a run on the server takes. */
const LOCAL_ONLY = ['stub', 'vars', 'secrets', 'signals', 'workflows', 'trigger', 'clock', 'allow-egress', 'allow-loopback'] as const;

export function isWorkflowFile(target: string): boolean {
  return /\.(ya?ml|json)$/i.test(target) || /[\\/]/.test(target);
}

export interface RunTargetOptions extends Partial<Record<(typeof LOCAL_ONLY)[number], unknown>> {
  alias?: string;
}

/** Refuses options that do not fit where the run happens, saying why. */
export function checkRunOptions(target: string, options: RunTargetOptions): void {
  if (isWorkflowFile(target)) {
    if (options.alias !== undefined)
      throw new CliError(`--alias is for a run on the server (run <key>); ${target} is a file, run locally`, EXIT.usage);
    return;
  }
  const local = LOCAL_ONLY.filter((name) => options[name] !== undefined);
  if (local.length > 0)
    throw new CliError(
      `${local.map((name) => `--${name}`).join(', ')}: only a local run of a file takes ${local.length > 1 ? 'these' : 'this'}; ` +
        `"${target}" is a workflow key, run on the server with its plugins and config (platform-workflow config set). ` +
        `To run a file locally, name the file (flows/${target}.yaml)`,
      EXIT.usage,
    );
}

interface PendingWait {
  waitId: string;
  stepId: string;
  signalNames: string[];
  callbackUrl?: string;
}

export async function remoteRunCommand(
  api: ApiClient,
  key: string,
  options: { inputs?: string; alias?: string; json?: boolean },
  io: Output,
): Promise<number> {
  const body = { inputs: jsonObject(options.inputs, '--inputs') ?? {}, ...(options.alias ? { alias: options.alias } : {}) };
  const started = (await api.request('post', `/workflows/definitions/${encodeURIComponent(key)}/execute`, body)).body;
  const executionId = String(started.executionId);
  if (!options.json) io.out(io.dim(`execution ${executionId}`));
  const path = `/workflows/executions/${encodeURIComponent(executionId)}`;
  const announced = new Set<string>();
  let waitSeconds = WAIT_SECONDS;
  for (;;) {
    let execution: Record<string, unknown>;
    try {
      execution = (await api.request('get', `${path}?wait=${waitSeconds}s`)).body;
    } catch (error) {
      // A server configured with a shorter ceiling says so: wait as long as it allows.
      const ceiling = waitCeiling(error);
      if (ceiling === undefined || ceiling >= waitSeconds) throw error;
      waitSeconds = ceiling;
      continue;
    }
    if (FINISHED.has(String(execution.status))) {
      if (!options.json) for (const entry of await allLogs(api, executionId)) io.out(formatLog(io, entry));
      return printEnd(io, execution, options);
    }
    if (execution.status === 'waiting') {
      await announceWaits(api, executionId, announced, io);
      await new Promise((resolve) => setTimeout(resolve, WAITING_RECHECK_MS));
    }
  }
}

/** Says once per wait what the execution waits on and how to release it (on stderr: stdout stays the result). */
async function announceWaits(api: ApiClient, executionId: string, announced: Set<string>, io: Output): Promise<void> {
  const waits = (
    await api.request<{ data: PendingWait[] }>('get', `/workflows/executions/${encodeURIComponent(executionId)}/pending-signals`)
  ).body.data;
  for (const wait of waits) {
    if (announced.has(wait.waitId)) continue;
    announced.add(wait.waitId);
    if (wait.callbackUrl) {
      io.err(`${io.yellow('waiting')} step ${wait.stepId} waits on a POST to ${wait.callbackUrl}`);
      continue;
    }
    const send = wait.signalNames.map((name) => `platform-workflow signal ${executionId} ${name} --payload '{…}'`).join('   or   ');
    io.err(`${io.yellow('waiting')} step ${wait.stepId} waits on signal ${wait.signalNames.join(' or ')}: ${send}`);
  }
}

/** The longest `wait` the server allows, read from its 400 at /query/wait. */
function waitCeiling(error: unknown): number | undefined {
  if (!(error instanceof ApiRefusal) || error.status !== 400) return undefined;
  const field = error.fieldErrors.find((problem) => problem.path === '/query/wait');
  const seconds = Number(/at most (\d+)s/.exec(field?.message ?? '')?.[1]);
  return Number.isInteger(seconds) && seconds > 0 ? seconds : undefined;
}
