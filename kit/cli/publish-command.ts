/**
 * `publish`: GitOps upsert of every definition file found (PUT by key), each
 * file on its own, sent as written: the server keeps its text (comments and
 * all) as the revision's source, which `diff` compares with the file later. One line per file says what became of it: published (a new
 * workflow or a new revision), unchanged (the newest revision already has this
 * content), or refused with the server's reason, its problems located in the
 * file. A refused file does not stop the others; the exit code says whether
 * any was refused.
 *
 * The server judges the definitions, not the kit: it knows the operator
 * plugins it loaded (the kit does not), so a definition that uses one
 * publishes, and one that uses a plugin the server lacks is refused with that
 * reason. Only what would refuse every file alike (an unreachable server, a
 * refused token) stops the run.
 *
 * `--stub type=module.js` says, as it does for `validate` and `run`, that a
 * plugin type is a stand-in here: a file whose steps use a stubbed type that
 * the server does not list (GET /workflows/plugins) is skipped, said so on its
 * own line and counted, and nothing is sent for it; it does not fail the run.
 * Without `--stub` such a file is refused as before: a missing plugin is an
 * error unless the caller said it expects one.
 *
 * `--alias NAME` moves that alias to the published revision and activates it,
 * as the compatible engine's `publish --alias` and its upload scripts do
 * (`--no-activate` only moves it); `--activate` alone activates `latest`. An
 * alias already active on that revision is not activated again: repointing
 * an active alias has moved its trigger registrations to the new revision
 * already (the server does it atomically), and activating it again would
 * only register them a second time (and mint new webhook URLs).
 *
 * The alias's live triggers follow, one line each: a webhook's URL (the
 * alias's, kept across revisions while it stays active) and a schedule's
 * expression with its next runs.
 */
import { readFileSync } from 'node:fs';
import { keyOf } from '../children';
import { formatDefinitionError } from '../errors';
import { parseDocument } from '../load';
import { ApiRefusal, TextBody, type ApiClient } from './client';
import { filesOf } from './local-commands';
import { stubTypes } from './values';
import { CliError, EXIT, type Output } from './output';

export interface PublishOptions {
  alias?: string;
  /** `type=module.js`: plugin types that are stand-ins (only the types are read). */
  stub?: string[];
  /** Default: true with --alias, false without; --no-activate says false. */
  activate?: boolean;
}

interface AliasState {
  name?: string;
  revision?: number;
  active?: boolean;
  triggers?: TriggerSummary[];
}

/** Where a trigger of the alias is reached now, as the server's publish and alias answers say. */
interface TriggerSummary {
  stepId?: string;
  pluginType?: string;
  status?: string;
  webhookUrl?: string;
  schedule?: string;
  timezone?: string;
  nextRuns?: string[];
}

/** What became of one file: counted in the summary; a refusal carries its exit code. */
type Outcome = { status: 'published' | 'unchanged' | 'skipped' } | { status: 'refused'; exitCode: number };

const STATUS_WIDTH = 'published'.length;

export async function publishCommand(api: ApiClient, targets: string[], options: PublishOptions, io: Output): Promise<number> {
  if (targets.length === 0) throw new CliError('publish needs files or folders', EXIT.usage);
  if (options.alias === 'latest') throw new CliError('--alias latest is maintained by the server; name another alias', EXIT.usage);
  const files = targets.flatMap(filesOf);
  const missing = missingStubbedPlugins(api, stubTypes(options.stub));
  const counts = { published: 0, unchanged: 0, refused: 0, skipped: 0 };
  let exitCode: number = EXIT.ok;
  for (const file of files) {
    const outcome = await publishFile(api, file, options, io, missing);
    counts[outcome.status] += 1;
    if (outcome.status === 'refused' && exitCode === EXIT.ok) exitCode = outcome.exitCode;
  }
  const skipped = counts.skipped > 0 ? `, ${counts.skipped} skipped (stubbed plugins this server does not have)` : '';
  io.out(`${counts.published} published, ${counts.unchanged} unchanged, ${counts.refused} refused${skipped}`);
  return exitCode;
}

/** A definition file as the server keeps it: its text, as JSON for a `.json` file, else as YAML. */
export function sourceOf(file: string): TextBody {
  return new TextBody(readFileSync(file, 'utf8'), /\.json$/i.test(file) ? 'application/json' : 'application/yaml');
}

/** Which of a definition's plugin types are stubbed and absent from the server's catalogue (read once, when first needed). */
type MissingPlugins = (definition: Record<string, unknown>) => Promise<string[]>;

function missingStubbedPlugins(api: ApiClient, stubbed: Set<string>): MissingPlugins {
  let catalogue: Promise<Set<string> | undefined> | undefined;
  return async (definition) => {
    const wanted = pluginTypesOf(definition).filter((type) => stubbed.has(type));
    if (wanted.length === 0) return [];
    catalogue ??= api.request<{ data?: Array<{ name?: string }> }>('get', '/workflows/plugins').then(
      ({ body }) => new Set((body.data ?? []).map((plugin) => String(plugin.name))),
      (error: unknown) => {
        // A catalogue the token may not read leaves the judgement to the server (the PUT).
        if (error instanceof ApiRefusal && error.status !== 401) return undefined;
        throw error;
      },
    );
    const known = await catalogue;
    return known ? wanted.filter((type) => !known.has(type)) : [];
  };
}

/** The plugin types a definition's steps name (steps as a list or keyed by id). */
function pluginTypesOf(definition: Record<string, unknown>): string[] {
  const steps = definition.steps;
  const list: unknown[] = Array.isArray(steps) ? steps : steps !== null && typeof steps === 'object' ? Object.values(steps) : [];
  const types = list.flatMap((step) => {
    const type = (step as { pluginType?: unknown } | null)?.pluginType;
    return typeof type === 'string' ? [type] : [];
  });
  return [...new Set(types)];
}

async function publishFile(api: ApiClient, file: string, options: PublishOptions, io: Output, missing: MissingPlugins): Promise<Outcome> {
  const line = (status: Outcome['status'], text: string) => {
    const painted =
      status === 'published' ? io.green(status) : status === 'refused' ? io.red(status) : status === 'skipped' ? io.yellow(status) : status;
    return `${painted}${' '.repeat(STATUS_WIDTH + 1 - status.length)}${file}: ${text}`;
  };
  const document = parseDocument(file);
  const value = document.value;
  if (document.errors.length > 0 || value === null || typeof value !== 'object' || Array.isArray(value)) {
    // Nothing a server could read: refused here, without a request.
    const why = document.errors.length > 0 ? 'does not parse as YAML or JSON' : 'is not a definition (a YAML or JSON object)';
    io.err(line('refused', `${why}; nothing was sent`));
    for (const error of document.errors) io.err(`  ${formatDefinitionError(error, file)}`);
    return { status: 'refused', exitCode: EXIT.failed };
  }
  const key = keyOf(value, file);
  const workflow = `/workflows/definitions/${encodeURIComponent(key)}`;
  const absent = await missing(value as Record<string, unknown>);
  if (absent.length > 0) {
    const names = absent.join(', ');
    io.out(
      line(
        'skipped',
        `${key} needs ${absent.length > 1 ? 'plugins' : 'plugin'} ${names}, which this server does not have (stubbed with --stub); nothing was sent (operators load plugins with PLUGINS)`,
      ),
    );
    return { status: 'skipped' };
  }
  try {
    // The file's own text (comments, order, layout), as the revision's source; the key is the URL's when the file names none.
    const published = (await api.request('put', workflow, sourceOf(file))).body;
    const revision = (published.revision as { revision?: number } | undefined)?.revision;
    const unchanged = published.mode === 'overwritten';
    io.out(
      unchanged
        ? line('unchanged', `${key} revision ${revision} (the newest revision has this content)`)
        : line('published', `${key} revision ${revision} (${typeof published.mode === 'string' ? published.mode : 'created'})`),
    );
    for (const warning of (published.warnings as Array<{ name?: string; kind?: string }> | undefined) ?? [])
      io.out(`  ${io.yellow('warn')} ${warning.kind} ${warning.name} has no value yet`);
    let alias = published.latestAlias as AliasState | undefined;
    let triggers = published.triggers as TriggerSummary[] | undefined;
    if (options.alias) {
      alias = (await api.request<AliasState>('put', `${workflow}/aliases/${encodeURIComponent(options.alias)}`, { revision })).body;
      triggers = alias.triggers;
      io.out(`  alias ${options.alias} → revision ${revision}`);
    }
    if (options.activate ?? options.alias !== undefined) {
      const name = options.alias ?? 'latest';
      if (alias?.active === true && alias.revision === revision) {
        io.out(`  alias ${name} is active (its triggers are on revision ${revision})`);
      } else {
        triggers = (await api.request<{ alias?: AliasState }>('post', `${workflow}/aliases/${encodeURIComponent(name)}/activate`, {})).body
          .alias?.triggers;
        io.out(`  alias ${name} activated`);
      }
    }
    for (const line of liveTriggerLines(triggers)) io.out(`  ${line}`);
    return { status: unchanged ? 'unchanged' : 'published' };
  } catch (error) {
    if (!(error instanceof ApiRefusal) || error.status === 401) {
      if (error instanceof CliError) throw new CliError(`${file}: ${error.message}`, error.exitCode);
      throw error;
    }
    // A refused alias move or activation names its request (the revision itself was published, as said above);
    // only the definition's own problems point into the file.
    const ofDefinition = error.request === `PUT ${workflow}`;
    io.err(line('refused', `${key}: ${ofDefinition ? '' : `${error.request}: `}${error.status} ${error.reason}`));
    for (const problem of error.fieldErrors)
      io.err(
        `  ${ofDefinition ? formatDefinitionError({ ...problem, ...document.locate(problem.path) }, file) : formatDefinitionError(problem)}`,
      );
    return { status: 'refused', exitCode: error.exitCode };
  }
}

/** One line per live trigger of the alias: a webhook's URL, a schedule's expression and next runs. */
function liveTriggerLines(triggers: TriggerSummary[] | undefined): string[] {
  return (triggers ?? [])
    .filter((t) => t.status === 'live')
    .flatMap((t) => {
      if (t.webhookUrl) return [`webhook ${t.stepId}: ${t.webhookUrl}`];
      if (t.schedule)
        return [`cron ${t.stepId}: ${t.schedule} (${t.timezone ?? 'UTC'}), next ${(t.nextRuns ?? []).join(', ') || 'unknown'}`];
      return [];
    });
}
