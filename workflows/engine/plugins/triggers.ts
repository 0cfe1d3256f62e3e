/**
 * Trigger descriptors. A trigger step has no implementation: the runner passes
 * the trigger payload on as its items (see runtime/step-runner).
 */
import type { PluginDescriptor } from './descriptor';
import { str, bool, obj } from './schema';
import { field, openOutputs } from './outputs';

const WEBHOOK_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'ANY'];

export const manualTrigger: PluginDescriptor = {
  name: 'manual',
  kind: 'trigger',
  description: 'Started from the API or the UI.',
  executeMode: 'each',
  inline: true,
  inputPorts: [],
  outputPorts: ['default'],
  outputSchema: openOutputs('the run inputs as the caller gave them (also workflow.inputs); the fields config.inputs declares'),
  configSchema: { properties: { description: str(), inputs: obj('Run form parameters by name.') } },
};

export const cronTrigger: PluginDescriptor = {
  name: 'cron',
  kind: 'trigger',
  description: 'Starts a run on a schedule (a Temporal Schedule).',
  executeMode: 'each',
  inline: true,
  inputPorts: [],
  outputPorts: ['default'],
  outputSchema: openOutputs('the tick (also trigger.payload; workflow.inputs is empty)', {
    firedAt: field('string', 'the tick, to the second (ISO-8601)'),
    schedule: field('string', 'the schedule that fired'),
  }),
  configSchema: {
    properties: {
      schedule: str('5/6-field cron or @every macro', { format: 'cron' }),
      timezone: str('IANA zone, default UTC'),
      catchUpMissed: bool(),
    },
    required: ['schedule'],
  },
};

export const webhookTrigger: PluginDescriptor = {
  name: 'webhook',
  kind: 'trigger',
  description: 'Each request to the minted URL starts or signals a run.',
  executeMode: 'each',
  inline: true,
  inputPorts: [],
  outputPorts: ['default'],
  outputSchema: openOutputs('the request (also workflow.inputs and trigger.payload)', {
    method: field('string', 'the HTTP method'),
    headers: field('object', 'the request headers (credentials removed)'),
    query: field('object', 'the query parameters'),
    body: field(undefined, 'the parsed body (JSON, else text)'),
  }),
  configSchema: {
    properties: {
      path: str(),
      // ANY means every verb except GET and HEAD: a link preview or a crawler must not start runs,
      // so those two start one only when listed by name.
      method: str('one verb, or ANY (every verb except GET and HEAD)', { enum: WEBHOOK_METHODS }),
      methods: { type: 'array', description: 'several verbs (alternative to method)', items: str(undefined, { enum: WEBHOOK_METHODS }) },
      mode: str(undefined, { enum: ['start', 'signal'] }),
      signalName: str(),
      correlationKeyPath: str(),
      secret: str(),
      payloadSchema: obj(),
      keepHeaders: {
        type: 'array',
        description: 'request headers to keep in the payload besides the default ones (names that say they carry a credential never are)',
        items: str(),
      },
    },
  },
};

/** What a recovery run starts with: the failed execution and its error. */
const FAILURE_FIELDS = {
  executionId: field('string', 'the failed execution'),
  workflowId: field('string', 'its workflow'),
  stepId: field(['string', 'null'], 'the step that failed (null when the run failed otherwise)'),
  error: field('object', 'the failure: code (type), message, and more'),
};

/**
 * Recovery triggers: when an execution of the organization fails, each live
 * one starts a run with the failure as payload (`executionId`, `workflowId`,
 * `stepId`, `error`); see executions/dispatch-failure.ts.
 */
export const onErrorTrigger: PluginDescriptor = {
  name: 'on-error',
  kind: 'trigger',
  description: 'Starts a recovery run when an execution of the organization fails (scope workflow: any failure; step: a step failed).',
  executeMode: 'each',
  inline: true,
  inputPorts: [],
  outputPorts: ['default'],
  outputSchema: openOutputs('the failure (also workflow.inputs and trigger.payload)', FAILURE_FIELDS),
  configSchema: {
    properties: {
      scope: str('workflow (default): every failed execution; step: only failures caused by a step', { enum: ['step', 'workflow'] }),
      listenFor: str('older spelling of scope', { enum: ['step', 'workflow'] }),
    },
  },
};

export const executionFailedTrigger: PluginDescriptor = {
  name: 'execution-failed-trigger',
  kind: 'trigger',
  description: 'Starts a run when an execution of the watched workflow (by id or key; every workflow when unset) fails.',
  executeMode: 'each',
  inline: true,
  inputPorts: [],
  outputPorts: ['default'],
  outputSchema: openOutputs('the failure (also workflow.inputs and trigger.payload)', FAILURE_FIELDS),
  configSchema: {
    properties: {
      workflowId: str('the watched workflow: its id (wf_…) or key'),
      workflow_id: str('snake_case spelling of workflowId'),
    },
  },
};

/** Every trigger, in registry order. */
export const TRIGGERS: readonly PluginDescriptor[] = [manualTrigger, cronTrigger, webhookTrigger, onErrorTrigger, executionFailedTrigger];
