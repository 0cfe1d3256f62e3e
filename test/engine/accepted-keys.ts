/**
 * Every key a definition may carry, mapped to the test that shows its effect
 * or its refusal / publish warning (issue 18 §1: nothing accepted is
 * ignored). accepted-keys-enumeration.test.ts lists every key of every
 * built-in plugin's config schema, every field the validator accepts without
 * a warning (workflows/engine/validate-ignored.ts ACCEPTED_FIELDS) and the
 * declaration keys below, and fails when one has no entry here, or when a named test title
 * does not exist in its file.
 *
 * Keys: `<field>` / `<field>.<sub>` for step fields, `top:<field>` for
 * top-level fields, `<plugin>.config.<key>` for plugin config, `config.<key>`
 * for config keys of any plugin.
 */
export interface Shown {
  file: string;
  title: string;
}

const ENGINE = 'test/engine/accepted-keys.test.ts';
const HTTP = 'test/executions-api/accepted-keys.test.ts';
const RUNTIME = 'test/engine/execution-runtime.test.ts';
const PLUGINS_HTTP = 'test/executions-api/plugins.test.ts';
const RECOVERY = 'test/executions-api/recovery-runs.test.ts';
const FLOW_HTTP = 'test/executions-api/flow-control.test.ts';

const t = (file: string, title: string): Shown => ({ file, title });

const LOOP_EACH = t(ENGINE, 'loop.forEach runs the step once per element, naming the element itemName and its index indexName');
const LOOP_WHILE = t(ENGINE, 'loop.while runs the step while its condition holds, each run reading the previous output');
const WARNINGS = t(
  ENGINE,
  'warns at publish about timeout, executionTimeoutMs and retryPolicy where they have no effect, and webhook-wait correlationKey',
);
const RETRY_ACTIVITY = t(
  ENGINE,
  'a step timeout and retryPolicy on an activity step become the activity timeout and Temporal retry policy',
);
const FOR_EACH = t(RUNTIME, 'runs forEach sequentially with reduce, and in parallel counting failures');
const FALLBACK = t(RUNTIME, 'routes a failure to the fallback step, which reads the error');
const PROJECTS = t(RUNTIME, 'projects outputs');
const INPUT_SCHEMAS = t(
  HTTP,
  'checks execute inputs against the JSON Schemas of the top-level inputs map and the manual trigger (400 naming the failing paths)',
);

const DEFINITIONS_HTTP = 'test/workflows-api/definitions.test.ts';
const UPSERT_HTTP = 'test/workflows-api/upsert-revisions.test.ts';
const PUBLISHED = t(DEFINITIONS_HTTP, 'POST creates revision 1 with alias latest and a PublishResult');
const PLUGIN_KEYS = 'test/execution/plugin-config-keys.test.ts';
const PLUGINS_UNIT = 'test/execution/plugins.test.ts';
const DESCRIPTIVE = t(
  ENGINE,
  'keeps the descriptive keys (step name and description, the manual trigger description) in the stored definition',
);
const LOG = t(ENGINE, 'log writes its message at its level with its metadata');
const BACKOFF = t(ENGINE, 'retryPolicy backoff (fixed or exponential) and maxInterval reach the activity retry policy');
const FOR_EACH_NAMES = t(
  ENGINE,
  'forEach names the element itemVariable and its index indexVariable, spreads it with spreadItem, and bounds parallel runs by maxConcurrency',
);
const APPROVALS = 'test/executions-api/approvals.test.ts';
// The four-eyes run is answered step by step, one test a step.
const FOUR_EYES_REFUSED = t(APPROVALS, 'the starter, a non-approver and a bad form are refused, with nothing recorded');
const FOUR_EYES_INBOX = t(APPROVALS, 'the inbox: both approvers see the run; the starter (four eyes) and the viewer do not');
const FOUR_EYES_COUNTED = t(
  APPROVALS,
  'one user counts once: the first approval leaves the run waiting and the run leaves that approver’s inbox',
);
const FAN_OUT = t(ENGINE, 'metadata.fanOutPerItem false makes one call for the batch; metadata.maxParallelism bounds per-item calls');
const PLUGIN_WARNINGS = t(ENGINE, 'warns at publish about webhook path and code-exec executionConfig and runtime');
const PORTS = t(ENGINE, 'conditional truePort and falsePort rename its ports; case default names the port when no case matches');
const WEBHOOK_WAIT = t(ENGINE, 'webhook-wait takes its timeout, onTimeout and urlPrefix');
const OFFSET_PAGES = t(
  PLUGIN_KEYS,
  'pages by offset with renamed pageParam and limitParam, reads dataPath and stops at totalPath, sending method and headers',
);
const CHILD = t(
  ENGINE,
  'sub-workflow passes alias, revision, waitForCompletion and inheritCorrelationKey to the child start, and bounds children by maxParallelism',
);
const HTTP_BODIES = t(PLUGINS_UNIT, 'sends JSON bodies and headers, parses JSON responses');
const REFUSED_CONFIG = t(ENGINE, 'refuses at publish a code-exec TypeScript script with templates and http-request verifySsl false');

/**
 * Keys inside declarations and step metadata that the engine reads (the
 * enumeration adds ACCEPTED_FIELDS and every plugin config key).
 */
export const DECLARATION_KEYS = [
  'top:inputs.schema',
  'top:inputs.required',
  'top:inputs.type',
  'top:variables.initialValue',
  'top:secrets.key',
  'metadata.fanOutPerItem',
  'metadata.maxParallelism',
  'metadata.executionTimeoutMs',
  'forEach.reduce.initialValue',
  'forEach.reduce.accumulator',
] as const;

export const SHOWN: Record<string, Shown> = {
  // Step fields
  inputs: FOR_EACH,
  condition: t(RUNTIME, 'skips a step whose condition is false, and what only it feeds'),
  timeout: RETRY_ACTIVITY,
  'errorHandling.retryPolicy': t(ENGINE, 'retryPolicy on an inline step (sub-workflow) starts a failed child again after the backoff'),
  'errorHandling.retryPolicy.maxAttempts': RETRY_ACTIVITY,
  'errorHandling.retryPolicy.maxRetries': t(
    ENGINE,
    'retryPolicy on an inline step (sub-workflow) starts a failed child again after the backoff',
  ),
  'errorHandling.retryPolicy.backoffStrategy': RETRY_ACTIVITY,
  'errorHandling.retryPolicy.initialInterval': RETRY_ACTIVITY,
  'errorHandling.retryPolicy.jitter': t(
    ENGINE,
    'retry jitter: the engine retries the activity itself, waiting each backoff scaled by a random factor within ±jitter',
  ),
  'errorHandling.fallbackStep': FALLBACK,
  'forEach.expression': FOR_EACH,
  'forEach.parallel': FOR_EACH,
  'forEach.reduce': FOR_EACH,
  'loop.forEach': LOOP_EACH,
  'loop.itemName': LOOP_EACH,
  'loop.indexName': LOOP_EACH,
  'loop.while': LOOP_WHILE,
  'loop.maxIterations': t(ENGINE, 'loop.maxIterations caps a loop: more runs fail the step with LOOP_LIMIT_EXCEEDED'),
  'metadata.executionTimeoutMs': t(
    ENGINE,
    'metadata.executionTimeoutMs bounds the activity when the step has no timeout (timeout wins when both are set)',
  ),
  outputProjection: PROJECTS,
  // Top-level fields
  'top:inputs': INPUT_SCHEMAS,
  'top:inputs.schema': INPUT_SCHEMAS,
  'top:variables.initialValue': t(HTTP, 'resolves vars and workflow inputs in a variable initialValue when the run starts on the worker'),
  'top:secrets': t(HTTP, 'fails the start with SECRET_UNRESOLVED before any step when a declared secret has no value'),
  'top:outputs': t(RUNTIME, 'runs inline steps in the workflow and resolves outputs'),
  // Plugin config
  'manual.config.inputs': INPUT_SCHEMAS,
  'cron.config.catchUpMissed': t(
    'test/workflows-api/cron-temporal.test.ts',
    'sets the schedule catch-up window from catchUpMissed (true: a year, false: the 10 s minimum)',
  ),
  'cron.config.timezone': t(
    'test/workflows-api/cron-temporal.test.ts',
    'creates a schedule on activation (timezone, overlap skip, execution workflow type) and deletes it on deactivation',
  ),
  'cron.config.schedule': t(
    'test/workflows-api/cron-temporal.test.ts',
    'creates a schedule on activation (timezone, overlap skip, execution workflow type) and deletes it on deactivation',
  ),
  'webhook.config.payloadSchema': t(
    HTTP,
    'answers 422 at webhook ingress with the failing paths when the body does not match payloadSchema, and starts nothing',
  ),
  'webhook.config.method': t(
    'test/executions-api/webhooks.test.ts',
    'starts an execution with the request as the payload, verifying the HMAC signature',
  ),
  'webhook.config.secret': t(
    'test/executions-api/webhooks.test.ts',
    'starts an execution with the request as the payload, verifying the HMAC signature',
  ),
  'webhook.config.mode': t(
    'test/executions-api/webhooks.test.ts',
    'signals the execution of its own workflow waiting on the correlation key read from the payload',
  ),
  'webhook.config.signalName': t(
    'test/executions-api/webhooks.test.ts',
    'signals the execution of its own workflow waiting on the correlation key read from the payload',
  ),
  'webhook.config.correlationKeyPath': t(
    'test/executions-api/webhooks.test.ts',
    'signals the execution of its own workflow waiting on the correlation key read from the payload',
  ),
  'conditional.config.expression': t(PLUGINS_HTTP, 'routes through conditional and case deciders; untaken branches are skipped'),
  'case.config.expression': t(PLUGINS_HTTP, 'routes through conditional and case deciders; untaken branches are skipped'),
  'case.config.cases': t(PLUGINS_HTTP, 'routes through conditional and case deciders; untaken branches are skipped'),
  'fail.config.message': t(PLUGINS_HTTP, 'fails on purpose with the code and message of a fail step'),
  'fail.config.code': t(PLUGINS_HTTP, 'fails on purpose with the code and message of a fail step'),
  'delay.config.duration': t(PLUGINS_HTTP, 'waits on a durable delay timer before going on'),
  'set-variable.config.path': t(RUNTIME, 'runs inline steps in the workflow and resolves outputs'),
  'set-variable.config.value': t(RUNTIME, 'runs inline steps in the workflow and resolves outputs'),
  'set-variable.config.name': t(
    'test/engine/compat-plugins.test.ts',
    'writes the variable named by name, written under config or under inputs',
  ),
  'set-variable.config.assignments': t(PLUGINS_HTTP, 'sends batches around a split-in-batches loop, then everything to done'),
  'signal-wait.config.signalName': t(RUNTIME, 'waits for a signal; the next step reads signal.payload'),
  'signal-wait.config.correlationKey': t(RUNTIME, 'waits for a signal; the next step reads signal.payload'),
  'signal-wait.config.timeout': t(RUNTIME, 'times a wait out: error by default, or through the timeout port with onTimeout continue'),
  'signal-wait.config.onTimeout': t(RUNTIME, 'times a wait out: error by default, or through the timeout port with onTimeout continue'),
  'signal-wait.config.timeoutMs': t(HTTP, 'times a signal-wait out by timeoutMs (the older spelling) on the worker'),
  // A wait's declared answer (issue 42).
  'signal-wait.config.form': FOUR_EYES_REFUSED,
  'signal-wait.config.title': FOUR_EYES_INBOX,
  'signal-wait.config.description': FOUR_EYES_INBOX,
  'signal-wait.config.excludeStarter': FOUR_EYES_REFUSED,
  'signal-wait.config.required': FOUR_EYES_COUNTED,
  'signal-wait.config.approvers': t(
    APPROVALS,
    'approvers by role on an NRN rendered from the run, or by user id; a sibling account sees nothing; a plain signal cannot answer by correlation',
  ),
  'signal-wait.config.notify': t(
    APPROVALS,
    'posts once when the run starts waiting, with a link to the answer page, through the egress rules',
  ),
  'webhook-wait.config.correlationKey': WARNINGS,
  'split-in-batches.config.batchSize': t(RUNTIME, 'loops split-in-batches through a back-edge and collects every processed item'),
  'split-in-batches.config.arrayPath': t(RUNTIME, 'loops split-in-batches through a back-edge and collects every processed item'),
  'paginated-fetch.config.url': t(PLUGINS_HTTP, 'accumulates every page of a paged API with paginated-fetch'),
  'paginated-fetch.config.limit': t(PLUGINS_HTTP, 'accumulates every page of a paged API with paginated-fetch'),
  'paginated-fetch.config.mode': t(PLUGINS_HTTP, 'streams pages around a loop with paginated-fetch, its position kept between calls'),
  'sub-workflow.config.workflowId': t(
    'test/executions-api/sub-workflows.test.ts',
    'runs a child per item and collects their outputs in order',
  ),
  'sub-workflow.config.inputs': t('test/executions-api/sub-workflows.test.ts', 'runs a child per item and collects their outputs in order'),
  'sub-workflow.config.iterateItems': t(
    'test/executions-api/sub-workflows.test.ts',
    'runs one child with the whole batch as inputs.items when iterateItems is false',
  ),
  'http-request.config.url': LOOP_EACH,
  'http-request.config.body': PROJECTS,
  'code-exec.config.mode': t(RUNTIME, 'lets a mode property choose the execute mode: code-exec mode each runs once per item'),
  'code-exec.config.network': t(
    'test/executions-api/code-exec-network.test.ts',
    'fetches from an allowed host and refuses one that is not listed',
  ),
  'code-exec.config.libraries': t(ENGINE, 'refuses code-exec libraries at publish: the sandbox installs no packages'),
  'code-exec.config.returns': t(
    'test/executions-api/compat-plugins.test.ts',
    'code-exec: a returned array or scalar becomes {result}, nothing becomes {}, and returns: items makes items',
  ),
  // Step fields shown by the engine and graph tests
  id: DESCRIPTIVE,
  type: DESCRIPTIVE,
  pluginType: DESCRIPTIVE,
  name: DESCRIPTIVE,
  description: DESCRIPTIVE,
  config: LOG,
  dependsOn: t('test/engine/definition-validate.test.ts', 'accepts snake_case and steps as an array, expanding depends_on'),
  joinStrategy: t('test/engine/graph-walker.test.ts', 'fires an `any` join once per round, on the first arrival'),
  joinCount: t('test/engine/graph-walker.test.ts', 'fires a `count` join once enough edges arrive'),
  'errorHandling.continueOnError': t(
    'test/engine/graph-walker.test.ts',
    'continues past a failure with continueOnError through a failed edge',
  ),
  'errorHandling.retryPolicy.backoff': BACKOFF,
  'errorHandling.retryPolicy.maxInterval': BACKOFF,
  'forEach.itemVariable': FOR_EACH_NAMES,
  'forEach.indexVariable': FOR_EACH_NAMES,
  'forEach.maxConcurrency': FOR_EACH_NAMES,
  'forEach.spreadItem': FOR_EACH_NAMES,
  'metadata.fanOutPerItem': FAN_OUT,
  'metadata.maxParallelism': FAN_OUT,
  // Plugin config shown by the engine, plugin and HTTP tests
  'manual.config.description': DESCRIPTIVE,
  'webhook.config.path': PLUGIN_WARNINGS,
  'webhook.config.keepHeaders': t(
    'test/executions-api/webhook-security.test.ts',
    'keeps only allowlisted headers (and those the trigger names), and no credential-named header or query parameter',
  ),
  'webhook.config.methods': t(
    'test/executions-api/webhook-security.test.ts',
    'starts runs on GET or HEAD only when the trigger names them (ANY does not)',
  ),
  'conditional.config.truePort': PORTS,
  'conditional.config.falsePort': PORTS,
  'case.config.default': PORTS,
  'log.config.level': LOG,
  'log.config.message': LOG,
  'log.config.metadata': LOG,
  'fail.config.metadata': t(ENGINE, 'fail carries its code, message and metadata (as error details) on the step record'),
  'signal-wait.config.defaultValue': t(ENGINE, 'signal-wait defaultValue is the payload when the wait times out with onTimeout continue'),
  'webhook-wait.config.timeout': WEBHOOK_WAIT,
  'webhook-wait.config.onTimeout': WEBHOOK_WAIT,
  'webhook-wait.config.urlPrefix': WEBHOOK_WAIT,
  'on-error.config.scope': t(RECOVERY, 'scope step (or its older spelling listenFor) ignores failures no step caused'),
  'on-error.config.listenFor': t(RECOVERY, 'scope step (or its older spelling listenFor) ignores failures no step caused'),
  'execution-failed-trigger.config.workflowId': t(
    RECOVERY,
    'starts an on-error run and a watching execution-failed-trigger run with the failure as payload',
  ),
  'execution-failed-trigger.config.workflow_id': t(
    RECOVERY,
    'starts an on-error run and a watching execution-failed-trigger run with the failure as payload',
  ),
  'split-in-batches.config.reset': t(
    ENGINE,
    'split-in-batches reset starts over with the items of each entry, forgetting the batches processed so far',
  ),
  'paginated-fetch.config.method': OFFSET_PAGES,
  'paginated-fetch.config.headers': OFFSET_PAGES,
  'paginated-fetch.config.paginationStrategy': OFFSET_PAGES,
  'paginated-fetch.config.pageParam': OFFSET_PAGES,
  'paginated-fetch.config.limitParam': OFFSET_PAGES,
  'paginated-fetch.config.dataPath': OFFSET_PAGES,
  'paginated-fetch.config.totalPath': OFFSET_PAGES,
  'paginated-fetch.config.hasMorePath': t(PLUGIN_KEYS, 'stops where hasMorePath says, or after maxPages'),
  'paginated-fetch.config.maxPages': t(PLUGIN_KEYS, 'stops where hasMorePath says, or after maxPages'),
  'paginated-fetch.config.stopWhenShortPage': t(PLUGIN_KEYS, 'stopWhenShortPage: a short page ends the fetch unless it is false'),
  'paginated-fetch.config.cursorRequestParam': t(PLUGIN_KEYS, 'sends the cursor under cursorRequestParam'),
  'paginated-fetch.config.cursorResponsePath': t(PLUGIN_KEYS, 'sends the cursor under cursorRequestParam'),
  'sub-workflow.config.alias': CHILD,
  'sub-workflow.config.revision': CHILD,
  'sub-workflow.config.waitForCompletion': CHILD,
  'sub-workflow.config.inheritCorrelationKey': CHILD,
  'sub-workflow.config.maxParallelism': CHILD,
  'http-request.config.method': HTTP_BODIES,
  'http-request.config.headers': HTTP_BODIES,
  'http-request.config.timeout': t(PLUGINS_UNIT, 'maps statuses and transport problems to the engine codes, retryable or not'),
  'http-request.config.followRedirects': t(PLUGINS_UNIT, 'follows redirects unless told not to'),
  'http-request.config.verifySsl': REFUSED_CONFIG,
  'code-exec.config.code': t(PLUGINS_UNIT, 'runs JavaScript with inputs and items, returning an object'),
  'code-exec.config.language': REFUSED_CONFIG,
  'code-exec.config.executionConfig': PLUGIN_WARNINGS,
  'code-exec.config.runtime': PLUGIN_WARNINGS,
  // Top-level fields, declarations and containers
  'top:name': PUBLISHED,
  'top:key': PUBLISHED,
  'top:semanticVersion': PUBLISHED,
  'top:releaseNotes': PUBLISHED,
  'top:path': t(DEFINITIONS_HTTP, 'GET by id or key, list with path prefix and text filters, paged'),
  'top:description': t(UPSERT_HTTP, 'created, then overwritten for identical content (idempotent), then new-revision'),
  'top:metadata': t(UPSERT_HTTP, 'created, then overwritten for identical content (idempotent), then new-revision'),
  'top:nrn': t(
    'test/authorization/engine-grants.test.ts',
    'a grant on a narrower NRN than the workflow does not reach it; one on the workflow NRN does',
  ),
  'top:triggers': t(DEFINITIONS_HTTP, 'discards a client triggers value'),
  'top:concurrency': t(
    FLOW_HTTP,
    'runs 20 starts of one concurrency key (limit 1) one at a time, in order, none lost or doubled; another key runs beside them',
  ),
  'top:throttle': t(FLOW_HTTP, 'a throttle of 2 per 10 s spaces 6 starts: two per period, in order'),
  'top:debounce': t(FLOW_HTTP, 'a debounce folds 20 webhook deliveries into one run with the last payload'),
  'top:steps': t(DEFINITIONS_HTTP, 'accepts YAML with snake_case keys and steps as an array'),
  'top:connections': t(RUNTIME, 'runs inline steps in the workflow and resolves outputs'),
  'top:variables': t(RUNTIME, 'runs inline steps in the workflow and resolves outputs'),
  'top:inputs.required': INPUT_SCHEMAS,
  'top:inputs.type': INPUT_SCHEMAS,
  'top:secrets.key': t(HTTP, 'reads the bound config entry for secrets.NAME when the definition binds NAME to another entry'),
  errorHandling: FALLBACK,
  forEach: FOR_EACH,
  loop: LOOP_WHILE,
  metadata: FAN_OUT,
  'forEach.reduce.initialValue': FOR_EACH,
  'forEach.reduce.accumulator': FOR_EACH,
  'config.maxParallelism': t(ENGINE, 'config.maxParallelism bounds the per-item calls of any plugin'),
};
