/**
 * `chat-message`: an example operator plugin. It posts one message to a chat
 * service's incoming webhook (Slack, Mattermost, Rocket.Chat and others
 * accept `{"text": …}`). The webhook URL is a credential: a step takes it
 * from a secret (`webhookUrl: "${{ secrets.CHAT_WEBHOOK_URL }}"`), so it is
 * decrypted only in the worker, for this call, and redacted from logs,
 * outputs and errors.
 *
 * Load it with `PLUGINS=./examples/plugins/chat-message`.
 */
import type { PluginDescriptorExport, PluginExecute } from '../../../activities/plugins/operator/plugin-api';

/** Bytes of the chat service's answer read (it is only reported back in an error). */
const MAX_ANSWER_BYTES = 16 * 1024;

export const descriptor: PluginDescriptorExport = {
  name: 'chat-message',
  version: '1.0.0',
  kind: 'module',
  category: 'communication',
  description: 'Posts a message to a chat incoming-webhook URL.',
  executeMode: 'each',
  configSchema: {
    type: 'object',
    properties: {
      webhookUrl: { type: 'string', description: 'the incoming-webhook URL; write it as ${{ secrets.NAME }}' },
      text: { type: 'string', minLength: 1, description: 'the message (templates allowed)' },
      username: { type: 'string', description: 'display name, where the service allows it' },
      channel: { type: 'string', description: 'channel override, where the service allows it' },
    },
    required: ['webhookUrl', 'text'],
  },
  outputSchema: {
    type: 'object',
    properties: { delivered: { type: 'boolean' }, statusCode: { type: 'integer' } },
    required: ['delivered', 'statusCode'],
  },
  examples: [
    {
      title: 'Announce a deployment',
      config: { webhookUrl: '${{ secrets.CHAT_WEBHOOK_URL }}', text: 'Deployed ${{ inputs.service }} to ${{ inputs.environment }}' },
    },
  ],
  documentation: [
    'Posts `{"text", "username"?, "channel"?}` as JSON to `webhookUrl`.',
    '',
    'A 2xx answer succeeds with `{delivered: true, statusCode}`. A 4xx answer fails the step with',
    '`CHAT_REJECTED` (not retried: the message or URL is wrong); a 5xx answer or a network error fails',
    'it with `CHAT_UNAVAILABLE`, which the step retry policy retries.',
  ].join('\n'),
};

export const execute: PluginExecute = async ({ config, fetch, log }) => {
  const body: Record<string, string> = { text: String(config.text) };
  for (const key of ['username', 'channel'] as const) if (typeof config[key] === 'string') body[key] = config[key];

  let response: Awaited<ReturnType<typeof fetch>>;
  try {
    response = await fetch(String(config.webhookUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  } catch (error) {
    // (An address the egress policy refuses is reported as PLUGIN_EGRESS_DENIED by the worker, whatever is thrown here.)
    throw Object.assign(new Error(`the chat service could not be reached: ${(error as Error).message}`), { code: 'CHAT_UNAVAILABLE' });
  }
  const answer = await readAnswer(response);
  if (response.status >= 400) {
    const error = new Error(`the chat service answered ${response.status}: ${answer}`);
    throw Object.assign(error, { code: response.status >= 500 ? 'CHAT_UNAVAILABLE' : 'CHAT_REJECTED', retryable: response.status >= 500 });
  }
  log.info(`message posted (${body.text.length} characters, HTTP ${response.status})`);
  return { outputs: { delivered: true, statusCode: response.status } };
};

/** The start of the answer's text, at most MAX_ANSWER_BYTES read (the rest is cancelled). */
async function readAnswer(response: Awaited<ReturnType<PluginExecuteContextFetch>>): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    const bytes = chunk.value as Uint8Array;
    chunks.push(bytes);
    size += bytes.byteLength;
    if (size >= MAX_ANSWER_BYTES) {
      await reader.cancel();
      break;
    }
  }
  return Buffer.concat(chunks).subarray(0, MAX_ANSWER_BYTES).toString('utf8');
}

type PluginExecuteContextFetch = Parameters<PluginExecute>[0]['fetch'];
