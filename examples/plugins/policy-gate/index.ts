/**
 * `policy-gate`: an example operator decider. It asks the team's policy
 * service whether a change may go ahead (POST `{subject}` to `url`, answered
 * `{decision: "allow" | "deny" | "review", reason?}`) and routes the step's
 * items to the port of that name. The call runs in the worker like any
 * operator plugin (egress policy, secrets resolved there and redacted); the
 * routing happens in the workflow, as for the built-in deciders.
 *
 * Load it with `PLUGINS=./examples/plugins/policy-gate`.
 */
import type { PluginDescriptorExport, PluginExecute } from '../../../activities/plugins/operator/plugin-api';

const DECISIONS = ['allow', 'deny', 'review'] as const;
/** Bytes of the policy service's answer read. */
const MAX_ANSWER_BYTES = 64 * 1024;

export const descriptor: PluginDescriptorExport = {
  name: 'policy-gate',
  version: '1.0.0',
  kind: 'decider',
  category: 'governance',
  description: 'Asks a policy service whether a change may go ahead; routes to allow, deny or review.',
  executeMode: 'each',
  outputPorts: [...DECISIONS],
  configSchema: {
    type: 'object',
    properties: {
      url: { type: 'string', description: 'the policy endpoint (POST)' },
      token: { type: 'string', description: 'bearer token; write it as ${{ secrets.NAME }}' },
      subject: { type: 'object', description: 'what is decided on (default: the step inputs, i.e. the item)' },
    },
    required: ['url'],
  },
  outputSchema: {
    type: 'object',
    properties: { decision: { type: 'string', enum: [...DECISIONS] }, reason: { type: 'string' }, matchedPort: { type: 'string' } },
  },
  examples: [
    {
      title: 'Gate a deployment',
      config: {
        url: 'https://policy.internal/v1/decide',
        token: '${{ secrets.POLICY_TOKEN }}',
        subject: { service: '${{ workflow.inputs.service }}', environment: '${{ workflow.inputs.environment }}' },
      },
    },
  ],
  documentation: [
    'POSTs `{"subject": …}` to `url` (with `Authorization: Bearer <token>` when `token` is set) and routes the',
    "step's items to the port the answer's `decision` names: `allow`, `deny` or `review`. The outputs are",
    '`{decision, reason, matchedPort, activePorts}`.',
    '',
    'A 4xx answer fails the step with `POLICY_REJECTED` (not retried), a 5xx answer or a network error with',
    '`POLICY_UNAVAILABLE` (retried by the step retry policy), an answer without a known decision with',
    '`POLICY_ANSWER_INVALID` (not retried).',
  ].join('\n'),
};

export const execute: PluginExecute = async ({ config, inputs, fetch, log }) => {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (typeof config.token === 'string' && config.token !== '') headers.authorization = `Bearer ${config.token}`;
  let response: Awaited<ReturnType<typeof fetch>>;
  try {
    response = await fetch(String(config.url), { method: 'POST', headers, body: JSON.stringify({ subject: config.subject ?? inputs }) });
  } catch (error) {
    throw Object.assign(new Error(`the policy service could not be reached: ${(error as Error).message}`), { code: 'POLICY_UNAVAILABLE' });
  }
  const text = await readAnswer(response);
  if (response.status >= 400) {
    const error = new Error(`the policy service answered ${response.status}: ${text}`);
    throw Object.assign(error, {
      code: response.status >= 500 ? 'POLICY_UNAVAILABLE' : 'POLICY_REJECTED',
      retryable: response.status >= 500,
    });
  }
  const answer = parse(text);
  const decision = DECISIONS.find((known) => known === answer?.decision);
  if (!decision)
    throw Object.assign(new Error(`the policy service answered no known decision (allow, deny or review): ${text.slice(0, 200)}`), {
      code: 'POLICY_ANSWER_INVALID',
      retryable: false,
    });
  const reason = typeof answer?.reason === 'string' ? answer.reason : '';
  log.info(`decision: ${decision}${reason ? ` (${reason})` : ''}`);
  return { activePorts: [decision], outputs: { decision, reason } };
};

/** The answer's text, at most MAX_ANSWER_BYTES read (the rest is cancelled). */
async function readAnswer(response: Response): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (let chunk = await reader.read(); !chunk.done && size < MAX_ANSWER_BYTES; chunk = await reader.read()) {
    chunks.push(chunk.value as Uint8Array);
    size += (chunk.value as Uint8Array).byteLength;
  }
  if (size >= MAX_ANSWER_BYTES) await reader.cancel();
  return Buffer.concat(chunks).subarray(0, MAX_ANSWER_BYTES).toString('utf8');
}

type Response = Awaited<ReturnType<Parameters<PluginExecute>[0]['fetch']>>;

function parse(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
