/**
 * The names a template may start from (engine-reference §3), with what each
 * holds: the one list the validator checks references against, the docs
 * generator prints (docs/template-roots.md) and the evaluator's scope matches
 * (runtime/context.ts `stepScope`; `secrets` is resolved by the activity).
 */

export interface TemplateRoot {
  name: string;
  description: string;
  /** Fields the root always has: a reference to another one is refused. Absent: any field may be read. */
  fields?: Record<string, string>;
}

export const TEMPLATE_ROOTS: readonly TemplateRoot[] = [
  {
    name: 'workflow',
    description: 'the run',
    fields: {
      inputs: 'the run inputs (what the trigger or the caller gave: see the trigger kinds below)',
      variables: 'the per-run variables (the same object as `variables`)',
      id: 'the workflow id (wf_…)',
      key: 'the workflow key, or null',
    },
  },
  { name: 'variables', description: 'the per-run variables (declared `variables:`, set-variable, forEach/loop item and index names)' },
  {
    name: 'steps',
    description:
      "`steps.<id>.outputs` (what the step returned: its plugin's outputs, docs/plugin-reference.md), `.items`, `.status` (completed, failed, skipped) and `.error` (`code`, `message`) of a step that has run",
  },
  {
    name: 'execution',
    description: 'this execution',
    fields: {
      id: 'the execution id',
      workflowId: 'the workflow id',
      revision: 'the revision running',
      alias: 'the alias it was started under, or null',
      startedAt: 'when it started (ISO-8601)',
      correlationKey: 'its correlation key, or null',
      organizationId: 'its organization',
    },
  },
  {
    name: 'trigger',
    description: 'what started the run',
    fields: {
      source: 'manual, cron, webhook, sub-workflow, signal or on-error',
      payload: 'what the trigger carried (see the trigger kinds below)',
      receivedAt: 'when it arrived (ISO-8601)',
    },
  },
  {
    name: 'signal',
    description: 'the signal that released a wait: only on the step right after the wait (null elsewhere)',
    fields: { payload: 'what the signal carried', name: 'the signal name', deliveredAt: 'when it arrived (ISO-8601)' },
  },
  { name: 'vars', description: 'configuration variables (`vars.NAME`), resolved when the run starts' },
  { name: 'secrets', description: 'secrets (`secrets.NAME`), resolved by the activity that needs them; never in history' },
  { name: 'inputs', description: "this step's own inputs: its resolved `inputs:` map, else the item it received" },
  { name: '$item', description: 'the current item (one call per item), else the first item of the batch' },
  { name: '$items', description: 'the items of the batch the step received' },
  { name: '$itemIndex', description: "the current item's index" },
  { name: '$itemsLength', description: 'how many items the batch has' },
];

/** What a step record exposes under `steps.<id>` (runtime/context.ts). */
export const STEP_FIELDS: Readonly<Record<string, string>> = {
  outputs: 'what the step returned',
  items: 'the items it passed on',
  status: 'completed, failed or skipped',
  error: 'code and message of its failure, else null',
};

/** What each way a run starts puts in `workflow.inputs` and `trigger.payload` (`trigger.source` names it). */
export const RUN_SOURCES: ReadonlyArray<{ source: string; startedBy: string; inputs: string; payload: string }> = [
  {
    source: 'manual',
    startedBy: 'POST /workflows/definitions/{id}/execute, the console, the kit (a manual trigger step)',
    inputs: "the caller's `inputs`, checked against the manual trigger's `config.inputs` (type, required); undeclared ones pass through",
    payload: 'the same inputs',
  },
  {
    source: 'cron',
    startedBy: 'a cron trigger step, on each tick of its schedule (or run by hand)',
    inputs: '`{firedAt, schedule}`, as the compatible engine gives them (by hand: with the inputs sent)',
    payload: '`{firedAt, schedule}`: the tick (ISO-8601, to the second) and the schedule',
  },
  {
    source: 'webhook',
    startedBy: 'a request to the webhook trigger URL (mode start)',
    inputs: '`{method, headers, query, body}`: the request (credential headers removed), the body parsed as JSON when it is JSON',
    payload: 'the same request',
  },
  {
    source: 'on-error',
    startedBy: 'an on-error or execution-failed-trigger step, when a watched execution fails',
    inputs: '`{executionId, workflowId, stepId, error}`: the failure',
    payload: 'the same failure',
  },
  {
    source: 'sub-workflow',
    startedBy: 'a sub-workflow step of another workflow',
    inputs: "the parent step's `config.inputs`, else its inputs (with `iterateItems: false`, plus `items`: the batch)",
    payload: 'the same inputs',
  },
  {
    source: 'signal',
    startedBy: 'POST /workflows/signals/{name} with a start (signal-with-start)',
    inputs: "the request's `inputs`, checked as a manual start's",
    payload: 'the same inputs (the signal itself is delivered to the wait)',
  },
];

export const ROOT_NAMES: ReadonlySet<string> = new Set(TEMPLATE_ROOTS.map((root) => root.name));

export function templateRoot(name: string): TemplateRoot | undefined {
  return TEMPLATE_ROOTS.find((root) => root.name === name);
}
