/**
 * `chat-ask`: an example operator two-phase wait (the compatible engine's
 * `slack-ask`). Its side effect posts a question to a chat service's incoming
 * webhook (from a secret, as `chat-message` does) together with what the
 * answer must carry: the signal name and a correlation key made for this
 * question. The step then parks in the workflow until that signal arrives
 * (`POST /workflows/signals/{signalName}` with the correlation key, sent by
 * the chat service's bot or a person) or its `timeout` passes.
 *
 * Its output is the answer (the signal's metadata and payload keys:
 * `steps.ask.outputs.answer`) over what the post returned (`question`,
 * `correlationKey`, `signalName`).
 *
 * Load it with `PLUGINS=./examples/plugins/chat-ask`.
 */
import { randomUUID } from 'node:crypto';
import type { PluginDescriptorExport, PluginExecute } from '../../../activities/plugins/operator/plugin-api';

const DEFAULT_SIGNAL = 'chat-answer';

export const descriptor: PluginDescriptorExport = {
  name: 'chat-ask',
  version: '1.0.0',
  kind: 'module',
  twoPhaseWait: true,
  category: 'communication',
  description: 'Asks a question in chat, then waits for the answer (a signal).',
  executeMode: 'each',
  configSchema: {
    type: 'object',
    properties: {
      webhookUrl: { type: 'string', description: 'the incoming-webhook URL; write it as ${{ secrets.NAME }}' },
      question: { type: 'string', minLength: 1, description: 'what to ask (templates allowed)' },
      options: { type: 'array', items: { type: 'string' }, description: 'answers to offer as buttons, where the chat service shows them' },
      signalName: { type: 'string', minLength: 1, description: `the signal the answer comes as (default ${DEFAULT_SIGNAL})` },
    },
    required: ['webhookUrl', 'question'],
  },
  outputSchema: {
    type: 'object',
    properties: {
      question: { type: 'string' },
      correlationKey: { type: 'string' },
      signalName: { type: 'string' },
      timedOut: { type: 'boolean' },
      payload: { description: 'the answer, as sent' },
    },
  },
  examples: [
    {
      title: 'Ask for an approval, for two hours',
      config: {
        webhookUrl: '${{ secrets.CHAT_WEBHOOK_URL }}',
        question: 'Deploy ${{ workflow.inputs.service }} to production?',
        options: ['yes', 'no'],
        timeout: '2h',
        onTimeout: 'continue',
      },
    },
  ],
  documentation: [
    'Posts `{"text", "ask": {"signalName", "correlationKey", "options"}}` as JSON to `webhookUrl`, then waits for',
    'the signal `signalName` (default `chat-answer`) carrying that correlation key. Answer with',
    '`POST /workflows/signals/chat-answer` `{"correlationKey": …, "payload": {"answer": "yes"}}`.',
    '',
    '`timeout`, `onTimeout` and `defaultValue` work as for `signal-wait`; with `onTimeout: continue` the step',
    'leaves through its `timeout` port when one is wired. A 4xx answer from the chat service fails the step with',
    '`CHAT_REJECTED` (not retried), a 5xx answer or a network error with `CHAT_UNAVAILABLE` (retried).',
  ].join('\n'),
};

export const execute: PluginExecute = async ({ config, fetch, log, step }) => {
  const signalName = typeof config.signalName === 'string' && config.signalName !== '' ? config.signalName : DEFAULT_SIGNAL;
  // One key per question: a run asking several (one per item) gets each answer to its own question.
  const correlationKey = `ask:${step.executionId}:${step.stepId}:${randomUUID().slice(0, 8)}`;
  const options = Array.isArray(config.options) ? config.options.map(String) : [];
  const question = String(config.question);
  let response: Awaited<ReturnType<typeof fetch>>;
  try {
    response = await fetch(String(config.webhookUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: question, ask: { signalName, correlationKey, options } }),
    });
  } catch (error) {
    throw Object.assign(new Error(`the chat service could not be reached: ${(error as Error).message}`), { code: 'CHAT_UNAVAILABLE' });
  }
  await response.body?.cancel();
  if (response.status >= 400)
    throw Object.assign(new Error(`the chat service answered ${response.status}`), {
      code: response.status >= 500 ? 'CHAT_UNAVAILABLE' : 'CHAT_REJECTED',
      retryable: response.status >= 500,
    });
  log.info(`question posted; waiting for signal "${signalName}"`);
  return { outputs: { question, correlationKey, signalName }, wait: { signalName, correlationKey } };
};
