/**
 * `change-feed`: an example operator plugin with per-step state (the
 * compatible engine's `nodeContext`: a streaming fetcher). Each run of its
 * step reads the next page of a change feed (the team's audit log, a queue's
 * HTTP API) after the cursor the step's previous run left, and leaves the new
 * cursor for the next run: around a loop, or whenever the step runs again in
 * the same execution. A new execution starts from the beginning (or from
 * `after`).
 *
 * The feed answers `GET <url>?after=<cursor>&limit=<n>` with
 * `{entries: [...], next: "<cursor>"}`.
 *
 * Load it with `PLUGINS=./examples/plugins/change-feed`.
 */
import type { PluginDescriptorExport, PluginExecute } from '../../../activities/plugins/operator/plugin-api';

const DEFAULT_LIMIT = 50;
/** Bytes of one page read. */
const MAX_PAGE_BYTES = 512 * 1024;

export const descriptor: PluginDescriptorExport = {
  name: 'change-feed',
  version: '1.0.0',
  kind: 'module',
  nodeState: true,
  category: 'integration',
  description: 'Reads the next page of a change feed after the cursor its step left last time.',
  // `callback`: where a loop comes back (as for paginated-fetch).
  inputPorts: ['default', 'callback'],
  configSchema: {
    type: 'object',
    properties: {
      url: { type: 'string', description: 'the feed (GET)' },
      token: { type: 'string', description: 'bearer token; write it as ${{ secrets.NAME }}' },
      limit: { type: 'integer', minimum: 1, maximum: 1000, description: `entries per page (default ${DEFAULT_LIMIT})` },
      after: { type: 'string', description: 'where the first run starts (default: the beginning of the feed)' },
    },
    required: ['url'],
  },
  outputSchema: {
    type: 'object',
    properties: {
      entries: { type: 'array' },
      count: { type: 'integer' },
      cursor: { type: 'string' },
      pages: { type: 'integer', description: 'pages read by this step in this execution' },
    },
  },
  examples: [{ title: 'Drain an audit log', config: { url: 'https://audit.internal/v1/changes', token: '${{ secrets.AUDIT_TOKEN }}' } }],
  documentation: [
    'Each run reads one page after the cursor the previous run of the step left (its state), and outputs',
    '`{entries, count, cursor, pages}`; a run that finds nothing new keeps the cursor, so the next one asks again.',
    'Loop on it with a decider on `steps.<id>.outputs.count > 0` and a back-edge into its `callback` port.',
    '',
    'A 4xx answer fails the step with `FEED_REJECTED` (not retried), a 5xx answer or a network error with',
    '`FEED_UNAVAILABLE` (retried), an answer that is not `{entries: [...]}` with `FEED_ANSWER_INVALID`.',
  ].join('\n'),
};

interface FeedState {
  cursor?: string;
  pages: number;
}

export const execute: PluginExecute = async ({ config, state, fetch, log }) => {
  const previous = state as FeedState | undefined;
  const cursor = previous?.cursor ?? (typeof config.after === 'string' && config.after !== '' ? config.after : undefined);
  const url = new URL(String(config.url));
  if (cursor !== undefined) url.searchParams.set('after', cursor);
  url.searchParams.set('limit', String(typeof config.limit === 'number' ? config.limit : DEFAULT_LIMIT));
  const headers: Record<string, string> = { accept: 'application/json' };
  if (typeof config.token === 'string' && config.token !== '') headers.authorization = `Bearer ${config.token}`;

  let response: Awaited<ReturnType<typeof fetch>>;
  try {
    response = await fetch(url, { headers });
  } catch (error) {
    throw Object.assign(new Error(`the feed could not be reached: ${(error as Error).message}`), { code: 'FEED_UNAVAILABLE' });
  }
  const text = await readPage(response);
  if (response.status >= 400)
    throw Object.assign(new Error(`the feed answered ${response.status}: ${text.slice(0, 200)}`), {
      code: response.status >= 500 ? 'FEED_UNAVAILABLE' : 'FEED_REJECTED',
      retryable: response.status >= 500,
    });
  const page = parse(text);
  if (!page || !Array.isArray(page.entries))
    throw Object.assign(new Error('the feed answered something other than {entries: [...]}'), {
      code: 'FEED_ANSWER_INVALID',
      retryable: false,
    });
  const next = typeof page.next === 'string' && page.next !== '' ? page.next : cursor;
  const pages = (previous?.pages ?? 0) + 1;
  log.info(`page ${pages}: ${page.entries.length} entries after ${cursor ?? 'the beginning'}`);
  return {
    outputs: { entries: page.entries, count: page.entries.length, cursor: next ?? null, pages },
    state: { ...(next !== undefined ? { cursor: next } : {}), pages } satisfies FeedState,
  };
};

/** The page's text, at most MAX_PAGE_BYTES read (a longer one is refused rather than cut). */
async function readPage(response: Awaited<ReturnType<Parameters<PluginExecute>[0]['fetch']>>): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    chunks.push(chunk.value as Uint8Array);
    size += (chunk.value as Uint8Array).byteLength;
    if (size > MAX_PAGE_BYTES) {
      await reader.cancel();
      throw Object.assign(new Error(`a feed page is larger than ${MAX_PAGE_BYTES} bytes: lower limit`), {
        code: 'FEED_ANSWER_INVALID',
        retryable: false,
      });
    }
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parse(text: string): { entries?: unknown; next?: unknown } | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
