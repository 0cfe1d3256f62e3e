/**
 * `ticket-events`: an example operator trigger plugin. When its workflow's
 * trigger is activated on an alias, it subscribes to the team's ticket
 * system's events (`POST <apiUrl>/subscriptions {url, events, project?}`,
 * answered `{id}`), giving it the start URL the engine minted for this
 * activation: each event the ticket system sends there starts an execution of
 * the alias, with the request (`body`: the event) as its trigger payload,
 * read as `steps.<trigger>.outputs.body` or `workflow.inputs.body`. When the
 * trigger is deactivated (or replaced by a new activation), it deletes the
 * subscription (`DELETE <apiUrl>/subscriptions/<id>`), and the URL stops
 * working anyway.
 *
 * The plugin holds no more than that URL: it cannot start anything else, read
 * executions or use the API.
 *
 * Load it with `PLUGINS=./examples/plugins/ticket-events`.
 */
import type {
  PluginActivate,
  PluginDeactivate,
  PluginDescriptorExport,
  PluginTriggerContext,
} from '../../../activities/plugins/operator/plugin-api';

export const descriptor: PluginDescriptorExport = {
  name: 'ticket-events',
  version: '1.0.0',
  kind: 'trigger',
  category: 'trigger',
  description: 'Starts a run for each event of a ticket system (subscribed while the trigger is active).',
  configSchema: {
    type: 'object',
    properties: {
      apiUrl: { type: 'string', description: "the ticket system's API" },
      token: { type: 'string', description: 'its API token; write it as ${{ secrets.NAME }}' },
      events: { type: 'array', items: { type: 'string' }, description: 'event types, such as issue.transitioned' },
      project: { type: 'string', description: "only this project's events" },
    },
    required: ['apiUrl', 'token', 'events'],
  },
  outputSchema: {
    type: 'object',
    properties: { method: { type: 'string' }, headers: { type: 'object' }, query: { type: 'object' }, body: { description: 'the event' } },
  },
  examples: [
    {
      title: 'Run on each transition in OPS',
      config: {
        apiUrl: 'https://tickets.internal/api',
        token: '${{ secrets.TICKETS_TOKEN }}',
        events: ['issue.transitioned'],
        project: 'OPS',
      },
    },
  ],
  documentation: [
    'On activation, subscribes `events` (of `project`, when set) with the start URL of this activation; on',
    'deactivation, deletes that subscription. Each event starts a run with `{method, headers, query, body}`.',
    '',
    'A 4xx answer refuses the activation with `TICKETS_REJECTED` (the config or the token is wrong), a 5xx answer',
    'or a network error with `TICKETS_UNAVAILABLE` (retried first).',
  ].join('\n'),
};

export const activate: PluginActivate = async (context) => {
  const { config } = context;
  const response = await call(context, `${base(config)}/subscriptions`, {
    method: 'POST',
    body: JSON.stringify({
      url: context.startUrl,
      events: config.events,
      ...(typeof config.project === 'string' ? { project: config.project } : {}),
    }),
  });
  const answer = (await response.json()) as { id?: unknown };
  if (typeof answer.id !== 'string' && typeof answer.id !== 'number')
    throw Object.assign(new Error('the ticket system answered a subscription without an id'), {
      code: 'TICKETS_REJECTED',
      retryable: false,
    });
  context.log.info(`subscribed ${String(answer.id)} to ${(config.events as string[]).join(', ')}`);
  return { state: { subscriptionId: String(answer.id) } };
};

export const deactivate: PluginDeactivate = async (context) => {
  const id = context.state?.subscriptionId;
  if (typeof id !== 'string') return;
  const response = await call(context, `${base(context.config)}/subscriptions/${encodeURIComponent(id)}`, { method: 'DELETE' }, [404]);
  await response.body?.cancel();
  context.log.info(`unsubscribed ${id}`);
};

const base = (config: Record<string, unknown>) => String(config.apiUrl).replace(/\/+$/, '');

/** One call to the ticket system with its token; its refusals as the plugin's errors (`also` lists answers that are fine). */
async function call(context: PluginTriggerContext, url: string, init: { method: string; body?: string }, also: number[] = []) {
  let response: Awaited<ReturnType<PluginTriggerContext['fetch']>>;
  try {
    response = await context.fetch(url, {
      ...init,
      headers: { authorization: `Bearer ${String(context.config.token)}`, 'content-type': 'application/json' },
    });
  } catch (error) {
    throw Object.assign(new Error(`the ticket system could not be reached: ${(error as Error).message}`), { code: 'TICKETS_UNAVAILABLE' });
  }
  if (response.status >= 400 && !also.includes(response.status)) {
    await response.body?.cancel();
    throw Object.assign(new Error(`the ticket system answered ${response.status} to ${init.method}`), {
      code: response.status >= 500 ? 'TICKETS_UNAVAILABLE' : 'TICKETS_REJECTED',
      retryable: response.status >= 500,
    });
  }
  return response;
}
