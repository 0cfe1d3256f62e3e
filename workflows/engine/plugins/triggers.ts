/**
 * Trigger descriptors. A trigger step has no implementation: the runner passes
 * the trigger payload on as its items (see runtime/step-runner).
 */
import type { PluginDescriptor } from './descriptor';
import { str, bool, obj } from './schema';

const WEBHOOK_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'ANY'];

export const manualTrigger: PluginDescriptor = {
  name: 'manual',
  kind: 'trigger',
  description: 'Started from the API or the UI.',
  executeMode: 'each',
  inline: true,
  inputPorts: [],
  outputPorts: ['default'],
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
    },
  },
};

/** Every trigger, in registry order. */
export const TRIGGERS: readonly PluginDescriptor[] = [manualTrigger, cronTrigger, webhookTrigger];
