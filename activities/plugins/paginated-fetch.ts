/**
 * `paginated-fetch`: pages through an HTTP API by page number, offset or
 * cursor. `accumulate` (default) fetches every page in one call and sends all
 * items to `done` and `default`; `stream` fetches one page per call and sends it to `loop`
 * (a back-edge into the `callback` port asks for the next page), then an empty
 * envelope to `done`. The paging position lives in the step's node state,
 * kept by the workflow between calls.
 */
import { ApplicationFailure } from '@temporalio/common';
import { paginatedFetchDescriptor, readPath, type Item, type PluginResult } from '../../workflows/engine';
import { httpRequest } from './http-request';
import type { EffectfulPlugin, PluginContext } from './plugin-context';

interface PageState {
  page: number;
  offset: number;
  cursor?: string;
  pages: number;
  totalFetched: number;
  done: boolean;
}

interface Options {
  strategy: 'page' | 'offset' | 'cursor';
  pageParam: string;
  limitParam: string;
  limit: number;
  cursorRequestParam: string;
  cursorResponsePath?: string;
  dataPath: string;
  hasMorePath: string;
  totalPath?: string;
  stopWhenShortPage: boolean;
  maxPages: number;
}

/** The activity implementation of the `paginated-fetch` descriptor. */
export const paginatedFetchPlugin: EffectfulPlugin = { descriptor: paginatedFetchDescriptor, run: paginatedFetch };

export async function paginatedFetch(context: PluginContext): Promise<PluginResult> {
  const { config } = context;
  const options = optionsOf(config, context.maxPages);
  const stream = config.mode === 'stream';
  let state: PageState = (context.call.nodeState as PageState | undefined) ?? {
    page: 1,
    offset: 0,
    pages: 0,
    totalFetched: 0,
    done: false,
  };

  if (stream) {
    if (state.done)
      return {
        status: 'success',
        items: [],
        outputs: { items: [], totalFetched: state.totalFetched, pages: state.pages },
        activePorts: ['done'],
        nodeState: null,
      };
    const { items, next } = await fetchPage(context, options, state);
    state = next;
    return {
      status: 'success',
      items,
      outputs: { items, totalFetched: state.totalFetched, pages: state.pages },
      activePorts: ['loop'],
      nodeState: { ...state },
    };
  }

  const all: Item[] = [];
  while (!state.done) {
    const { items, next } = await fetchPage(context, options, state);
    all.push(...items);
    state = next;
  }
  return {
    status: 'success',
    items: all,
    outputs: { items: all, totalFetched: state.totalFetched, pages: state.pages },
    // The documented accumulate result also feeds a plain `default` edge (no loop to wire there).
    activePorts: ['done', 'default'],
    nodeState: null,
  };
}

function optionsOf(config: Record<string, unknown>, ceiling = Infinity): Options {
  const text = (value: unknown, fallback: string) => (typeof value === 'string' && value !== '' ? value : fallback);
  const strategy = config.paginationStrategy === 'offset' || config.paginationStrategy === 'cursor' ? config.paginationStrategy : 'page';
  if (strategy === 'cursor' && typeof config.cursorResponsePath !== 'string') {
    throw ApplicationFailure.nonRetryable('paginated-fetch with cursor paging needs "cursorResponsePath"', 'PLUGIN_CONFIG_INVALID');
  }
  return {
    strategy,
    pageParam: text(config.pageParam, 'page'),
    limitParam: text(config.limitParam, 'limit'),
    limit: typeof config.limit === 'number' && config.limit > 0 ? Math.floor(config.limit) : 50,
    cursorRequestParam: text(config.cursorRequestParam, 'cursor'),
    cursorResponsePath: typeof config.cursorResponsePath === 'string' ? config.cursorResponsePath : undefined,
    dataPath: text(config.dataPath, 'data'),
    hasMorePath: text(config.hasMorePath, 'hasMore'),
    totalPath: typeof config.totalPath === 'string' ? config.totalPath : undefined,
    stopWhenShortPage: config.stopWhenShortPage !== false,
    maxPages: maxPagesOf(config.maxPages, ceiling),
  };
}

/** The configured page budget (default 100), refused above the worker's ceiling. */
function maxPagesOf(value: unknown, ceiling: number): number {
  const pages = typeof value === 'number' && value > 0 ? Math.floor(value) : Math.min(100, ceiling);
  if (pages > ceiling)
    throw ApplicationFailure.nonRetryable(
      `maxPages ${pages} is over the ceiling of ${ceiling} (WORKFLOW_MAX_PAGES)`,
      'PLUGIN_CONFIG_INVALID',
    );
  return pages;
}

async function fetchPage(context: PluginContext, options: Options, state: PageState): Promise<{ items: Item[]; next: PageState }> {
  const url = new URL(String(context.config.url));
  url.searchParams.set(options.limitParam, String(options.limit));
  if (options.strategy === 'page') url.searchParams.set(options.pageParam, String(state.page));
  if (options.strategy === 'offset') url.searchParams.set(options.pageParam, String(state.offset));
  if (options.strategy === 'cursor' && state.cursor !== undefined) url.searchParams.set(options.cursorRequestParam, state.cursor);

  const response = await httpRequest({ ...context, config: { ...context.config, url: url.toString() } });
  const body = (response.outputs as { body?: unknown } | undefined)?.body;
  const data = options.dataPath === '.' ? body : readPath(body, options.dataPath);
  if (!Array.isArray(data))
    throw ApplicationFailure.nonRetryable(`the response has no array at "${options.dataPath}"`, 'PAGINATION_DATA_MISSING');
  const items = data.map((entry) =>
    entry !== null && typeof entry === 'object' && !Array.isArray(entry) ? (entry as Item) : { value: entry },
  );

  const pages = state.pages + 1;
  const totalFetched = state.totalFetched + items.length;
  const hasMore = readPath(body, options.hasMorePath);
  const total = options.totalPath ? readPath(body, options.totalPath) : undefined;
  const cursor = options.cursorResponsePath ? readPath(body, options.cursorResponsePath) : undefined;
  const done =
    items.length === 0 ||
    pages >= options.maxPages ||
    hasMore === false ||
    (typeof total === 'number' && totalFetched >= total) ||
    (options.stopWhenShortPage && hasMore === undefined && items.length < options.limit) ||
    (options.strategy === 'cursor' && (cursor === undefined || cursor === null || cursor === ''));
  return {
    items,
    next: {
      page: state.page + 1,
      offset: state.offset + items.length,
      cursor: typeof cursor === 'string' || typeof cursor === 'number' ? String(cursor) : undefined,
      pages,
      totalFetched,
      done,
    },
  };
}
