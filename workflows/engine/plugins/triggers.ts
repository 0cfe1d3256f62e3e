/**
 * Trigger descriptors. A trigger step has no implementation: the runner passes
 * the trigger payload on as its items (see runtime/step-runner).
 */
import type { PluginDescriptor } from './descriptor';
import { str, bool, obj } from './schema';

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
      method: str(undefined, { enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'ANY'] }),
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
