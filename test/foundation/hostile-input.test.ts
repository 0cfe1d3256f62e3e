/**
 * Input that used to reach a place that cannot take it: a YAML body nested
 * thousands of levels deep reached the YAML parser, whose recursion overflowed
 * (and V8 may abort the whole process when that happens while it compiles a
 * regular expression); a NUL character in a path parameter reached PostgreSQL,
 * which refuses it (a 500). Both now answer 400 in the route family's dialect
 * before anything recursive or any lookup runs.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import fc from 'fast-check';
import supertest from 'supertest';
import YAML from 'yaml';
import { withDialect, defineRoute, type RouteDefinition } from '../../api/http/route';
import { createApp } from '../../api/app';
import { createTokenVerifier } from '../../api/http/auth';
import { YAML_MAX_DEPTH } from '../../api/http/body';
import { isStorableText } from '../../api/http/storable-text';
import { yamlDepthIssue } from '../../api/http/yaml-depth';
import { DEFAULT_LIMITS } from '../../config/limits';
import { createTestApp } from '../support/app';
import { captureLogger } from '../support/logger';
import { assertDialect, type Family } from '../support/dialects';

const LIMIT = DEFAULT_LIMITS.maxBodyDepth;
const DEEP = 2000;

/** The depth of a parsed value (objects and arrays are levels). */
function depth(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  let deepest = 0;
  for (const child of Object.values(value)) deepest = Math.max(deepest, depth(child));
  return 1 + deepest;
}

/** The depth the scan measures: the least limit it lets through. */
function measured(text: string): number {
  for (let limit = 0; limit < 10_000; limit++) if (!yamlDepthIssue(text, limit)) return limit;
  return Infinity;
}

/** YAML texts nested `levels` deep, in each way YAML nests. */
const deepYaml: Record<string, (levels: number) => string> = {
  'flow sequences': (n) => `a: ${'['.repeat(n - 1)}${']'.repeat(n - 1)}\n`,
  'flow mappings': (n) => `a: ${'{b: '.repeat(n - 1)}1${'}'.repeat(n - 1)}\n`,
  'flow across lines': (n) => `a: ${'[\n '.repeat(n - 1)}${']'.repeat(n - 1)}\n`,
  'block mappings': (n) => Array.from({ length: n }, (_, i) => `${' '.repeat(i)}k:`).join('\n') + ' 1\n',
  'compact sequences': (n) => `${'- '.repeat(n)}x\n`,
  'sequences at their key column': (n) => Array.from({ length: n / 2 }, (_, i) => `${' '.repeat(2 * i)}- k:`).join('\n') + ' 1\n',
  'mixed block and flow': (n) => `${'- '.repeat(n / 2)}${'['.repeat(n / 2)}${']'.repeat(n / 2)}\n`,
};

const routes: RouteDefinition[] = [
  ...withDialect('problem', [
    defineRoute({
      method: 'post',
      path: '/workflows/probe',
      operationId: 'probeBody',
      summary: 'probe',
      tags: ['probe'],
      access: { public: 'test' },
      audit: { none: 'test' },
      body: Type.Unknown(),
      bodyFormats: ['json', 'yaml'],
      responses: { 200: { description: 'ok' } },
      handler: ({ body }) => ({ status: 200, body: { depth: depth(body) } }),
    }),
  ]),
  ...(['problem', 'config', 'admin'] as const).flatMap((dialect) =>
    withDialect(dialect, [
      defineRoute({
        method: 'get',
        path: `/${dialect === 'problem' ? 'workflows/things' : dialect === 'config' ? 'workflows/config' : 'things'}/{id}`,
        operationId: `probe-${dialect}`,
        summary: 'probe',
        tags: ['probe'],
        access: { public: 'test' },
        params: Type.Object({ id: Type.String() }),
        responses: { 200: { description: 'ok' } },
        handler: ({ params }) => ({ status: 200, body: { id: params.id } }),
      }),
    ]),
  ),
];

describe('hostile input stops at the route layer', () => {
  // Room for the block shapes, whose indentation grows with their depth.
  const t = createTestApp({ routes, bodyLimitBytes: 4 * 1024 * 1024 });

  for (const [shape, build] of Object.entries(deepYaml)) {
    it(`a YAML body nested ${DEEP} deep (${shape}) answers 400 body_too_deep, measured before parsing`, async () => {
      const text = build(DEEP);
      assert.ok(yamlDepthIssue(text, LIMIT), 'the scan finds it too deep');
      const res = await t.request.post('/workflows/probe').set('Content-Type', 'application/yaml').send(text);
      assertDialect('problem', res, 400);
      assert.match(res.body.type, /\/body-too-deep$/, res.text);
      assert.match(res.body.detail, /nested deeper than \d+ levels at line \d+, column \d+/);
    });
  }

  it('a YAML body at the limit is accepted in every shape', async () => {
    for (const build of Object.values(deepYaml)) {
      const res = await t.request.post('/workflows/probe').set('Content-Type', 'application/yaml').send(build(LIMIT));
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.depth, LIMIT);
    }
  });

  it('a YAML body is parsed at most YAML_MAX_DEPTH deep, whatever BODY_MAX_DEPTH allows (up to 1000)', async () => {
    const roomy = createApp({
      config: { bodyLimitBytes: 4 * 1024 * 1024, publicBaseUrl: 'http://api.test', limits: { ...DEFAULT_LIMITS, maxBodyDepth: 1000 } },
      logger: captureLogger().logger,
      verifier: createTokenVerifier({ kind: 'hs256', secret: randomBytes(32) }),
      readiness: {},
      routes,
    });
    for (const build of Object.values(deepYaml)) {
      const send = (levels: number) =>
        supertest(roomy.koa.callback()).post('/workflows/probe').set('Content-Type', 'application/yaml').send(build(levels));
      const atCap = await send(YAML_MAX_DEPTH);
      assert.equal(atCap.status, 200, atCap.text);
      const past = await send(1000);
      assertDialect('problem', past, 400);
      assert.match(past.body.type, /\/body-too-deep$/, past.text);
      assert.match(past.body.detail, new RegExp(`deeper than ${YAML_MAX_DEPTH} levels`));
    }
  });

  it('the scan measures exactly the parsed depth of any document the YAML library writes (property)', () => {
    const styles = [
      {},
      { collectionStyle: 'flow' },
      { indentSeq: false },
      { indent: 4 },
      { defaultStringType: 'QUOTE_DOUBLE' },
      { defaultStringType: 'QUOTE_SINGLE' },
      { defaultStringType: 'BLOCK_LITERAL' },
      { defaultKeyType: 'PLAIN', defaultStringType: 'BLOCK_FOLDED' },
      { lineWidth: 20 },
    ] as const;
    const text = fc.constantFrom('a', 'k: v', '[x', '{', "it's", '"q"', '# c', 'a\n  b', '- x', '|', '> f', 'é', '---', 'u://h:1/', '');
    const value = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: 'small' }, text, fc.integer(), tie('list'), tie('map')),
      list: fc.array(tie('node'), { maxLength: 3 }),
      map: fc.dictionary(text, tie('node'), { maxKeys: 3 }),
    })).node;
    fc.assert(
      fc.property(value, fc.constantFrom(...styles), (doc, style) => {
        const written = YAML.stringify(doc, style as YAML.ToStringOptions);
        let parsed: unknown;
        try {
          parsed = YAML.parse(written);
        } catch {
          return; // a form the library writes but does not read back (multi-line implicit keys)
        }
        assert.equal(measured(written), depth(parsed), written);
      }),
      { numRuns: 1500 },
    );
  });

  it('brackets inside quoted, block and plain scalars and comments are not nesting', () => {
    const text = [
      'a: "[[[[{{{{"',
      "b: '[[[['' [[['",
      'c: x[[[[',
      'd: |',
      '  [[[[[[',
      '    {{{{',
      'e: 1 # [[[[[[',
      '# {{{{{{{{',
      'f: "multi [[[',
      '  line [[[["',
      'g: [1, "]]]", 2]',
    ].join('\n');
    assert.equal(measured(text), 2);
    assert.equal(depth(YAML.parse(text)), 2);
  });

  const families: Record<Family, string> = { problem: '/workflows/things', config: '/workflows/config', admin: '/things' };
  for (const [family, base] of Object.entries(families) as Array<[Family, string]>) {
    it(`a NUL character in a path or query parameter answers 400 in the ${family} dialect`, async () => {
      for (const path of [`${base}/%00`, `${base}/a%00b`, `${base}/ok?x=%00`]) {
        const res = await t.request.get(path);
        assertDialect(family, res, 400);
        assert.ok(!res.text.includes('\u0000'), 'the character is not echoed');
      }
      const fine = await t.request.get(`${base}/ok%C3%A9`);
      assert.equal(fine.status, 200, fine.text);
      assert.equal(fine.body.id, 'oké');
    });
  }

  it('a NUL character or a lone surrogate in a body (value or key) answers 400 naming where', async () => {
    for (const [text, pointer] of [
      ['{"a":{"b":["ok","x\\u0000"]}}', '/a/b/1'],
      ['{"a":{"k\\u0000":1}}', '/a/k\\u0000'],
      ['{"s":"\\ud800"}', '/s'],
    ]) {
      const res = await t.request.post('/workflows/probe').set('Content-Type', 'application/json').send(text);
      assertDialect('problem', res, 400);
      assert.deepEqual(
        res.body.errors.map((e: { path: string }) => e.path),
        [pointer],
        text,
      );
    }
    const yaml = await t.request.post('/workflows/probe').set('Content-Type', 'application/yaml').send('a: "x\\0y"\n');
    assertDialect('problem', yaml, 400);
  });

  it('text PostgreSQL cannot store: NUL and lone surrogates (pairs are fine)', () => {
    assert.equal(isStorableText('a\u0000'), false);
    assert.equal(isStorableText('a\uD800'), false);
    assert.equal(isStorableText('\uDC00a'), false);
    assert.equal(isStorableText('😀 ok'), true);
  });
});
