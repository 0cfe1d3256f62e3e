/**
 * Descriptors of the effectful plugins: they run as activities, and each is
 * implemented once under activities/plugins/ (keyed by the descriptor object,
 * checked at start-up by activities/plugins/registry.ts). Plain data here, so
 * the API and the workflow bundle can validate and route steps without the
 * implementations.
 */
import type { PluginDescriptor } from './descriptor';
import { str, bool, int, duration, obj } from './schema';
import { closedOutputs, field, openOutputs } from './outputs';

export const paginatedFetchDescriptor: PluginDescriptor = {
  name: 'paginated-fetch',
  kind: 'module',
  light: true,
  nodeState: true,
  description: 'Fetches pages, accumulating or streaming (one fetch per activation, whatever the batch).',
  executeMode: 'all',
  inline: false,
  inputPorts: ['default', 'callback'],
  outputPorts: ['loop', 'done'],
  outputSchema: closedOutputs({
    items: field('array', 'the items fetched (accumulate: every page; stream: this page)'),
    totalFetched: field('integer', 'items fetched so far'),
    pages: field('integer', 'pages fetched so far'),
  }),
  configSchema: {
    properties: {
      url: str(),
      method: str(undefined, { enum: ['GET', 'POST'] }),
      mode: str(undefined, { enum: ['accumulate', 'stream'] }),
      paginationStrategy: str(undefined, { enum: ['page', 'offset', 'cursor'] }),
      pageParam: str(),
      limitParam: str(),
      limit: int(undefined, 1),
      cursorRequestParam: str(),
      cursorResponsePath: str(),
      dataPath: str(),
      hasMorePath: str(),
      totalPath: str(),
      stopWhenShortPage: bool(),
      maxPages: int(undefined, 1),
      headers: obj(),
    },
    required: ['url'],
  },
};

export const httpRequestDescriptor: PluginDescriptor = {
  name: 'http-request',
  kind: 'module',
  light: true,
  callTimeout: { property: 'timeout', defaultMs: 30_000 },
  description: 'HTTP call.',
  executeMode: 'each',
  inline: false,
  inputPorts: ['default'],
  outputPorts: ['default'],
  outputSchema: closedOutputs({
    statusCode: field('integer', 'the HTTP status code (200, 404, …)'),
    statusText: field('string', 'the reason phrase (OK, Not Found, …)'),
    headers: field('object', 'the response headers, lower-case names'),
    body: field(undefined, 'the body: parsed JSON when the response says JSON, else text'),
  }),
  configSchema: {
    properties: {
      url: str(),
      method: str(undefined, { enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] }),
      headers: obj(),
      body: { type: 'any' },
      timeout: duration(),
      followRedirects: bool(),
      verifySsl: bool(),
    },
    required: ['url'],
  },
};

export const codeExecDescriptor: PluginDescriptor = {
  name: 'code-exec',
  kind: 'module',
  description: 'JavaScript in a sandbox with memory and time limits.',
  executeMode: 'all',
  inline: false,
  executeModeFrom: { property: 'mode', modes: { each: 'each', all: 'all' } },
  inputPorts: ['default'],
  outputPorts: ['default'],
  outputSchema: openOutputs(
    'what the code returns: an object as it is, any other value as {result}, nothing as {} (returns: items: one item per element)',
    {
      result: field(undefined, 'a returned value that is not an object'),
    },
  ),
  configSchema: {
    properties: {
      // A script: its templates are evaluated to values the code reads, never pasted into it (../script-templates.ts).
      code: str(undefined, { minLength: 1, format: 'script' }),
      language: str(undefined, { enum: ['js', 'ts', 'javascript', 'typescript'] }),
      mode: str(undefined, { enum: ['each', 'all'] }),
      // What the returned value becomes: `output` (the default, as the compatible engine does: an object is the output,
      // any other value `{result}`, undefined `{}`) or `items` (a returned array, one item per element).
      returns: str("`items`: the returned array becomes the step's items, one per element (default `output`: one output)", {
        enum: ['output', 'items'],
      }),
      network: { type: 'object', properties: { allowedHosts: { type: 'array', items: str() } } },
      libraries: { type: 'array', items: str() },
      executionConfig: obj(),
      runtime: obj(),
    },
    required: ['code'],
  },
};
