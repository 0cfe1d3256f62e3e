/**
 * Coming from the compatible engine, round two: `code-exec` in TypeScript and
 * `log.info(message, metadata)`, on the real stack (API, Temporal, worker,
 * sandbox, secrets). Each definition is written as that engine documents it,
 * published and run unchanged.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { execute, finished, publish, useExecEnv, waitFor } from './support';

describe('executions API: coming from the compatible engine (code-exec)', function () {
  this.timeout(60_000);
  const { env, org } = useExecEnv();

  it('code-exec language: typescript runs with its types stripped, in the same sandbox', async () => {
    //   start ─▶ typed
    await publish(env, org, {
      name: 'Compat ts',
      key: 'compat-ts',
      steps: [
        { id: 'start', type: 'trigger', pluginType: 'manual' },
        {
          id: 'typed',
          type: 'module',
          pluginType: 'code-exec',
          inputs: { names: '${{ workflow.inputs.names }}' },
          config: {
            language: 'typescript',
            code: [
              'interface Greeting { who: string; size: number }',
              'type Names = string[];',
              'const names = inputs.names as Names;',
              'const greet = (who: string): Greeting => ({ who, size: who.length });',
              'const all: Greeting[] = await Promise.all(names.map(async (n: string) => greet(n)));',
              "return { all, sandboxed: typeof require === 'undefined' && typeof process === 'undefined' };",
            ].join('\n'),
          },
          dependsOn: ['start'],
        },
      ],
      outputs: { all: '${{ steps.typed.outputs.all }}', sandboxed: '${{ steps.typed.outputs.sandboxed }}' },
    });
    const id = await execute(env, org, 'compat-ts', { inputs: { names: ['ana', 'bo'] } });
    const done = await waitFor(env, org, id, finished);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.deepEqual(done.outputs, {
      all: [
        { who: 'ana', size: 3 },
        { who: 'bo', size: 2 },
      ],
      sandboxed: true,
    });
  });

  it('code-exec language: ts that does not parse, or that escapes its body, is refused at publish and by validate, with the line', async () => {
    for (const [code, expected] of [
      ['const a: number = 1;\nconst b: = 2;\nreturn { a }', /not valid TypeScript: Unexpected "=" \(line 2, column 10\)/],
      ['return 1;\n}\nglobalThis.x = 1;\nfunction again() {', /not a function body/],
    ] as const) {
      const body = {
        name: 'Bad ts',
        key: 'compat-ts-bad',
        steps: [
          { id: 'start', type: 'trigger', pluginType: 'manual' },
          { id: 's', type: 'module', pluginType: 'code-exec', config: { language: 'ts', code }, dependsOn: ['start'] },
        ],
      };
      const refused = await org.auth(env.t.request.post('/workflows/definitions')).send(body);
      assert.equal(refused.status, 400, JSON.stringify(refused.body));
      const errors = refused.body.errors as Array<{ path: string; message: string }>;
      assert.deepEqual(
        errors.map((e) => e.path),
        ['/steps/1/config/code'],
      );
      assert.match(errors[0].message, expected);
      const report = await org.auth(env.t.request.post('/workflows/definitions/validate')).send(body).expect(200);
      assert.equal(report.body.valid, false);
      assert.match(report.body.errors[0].message, expected);
    }
  });

  it('log.info(message, metadata) puts the object in the entry metadata, scrubbed of secrets; console.log joins its arguments', async () => {
    const canary = `canary-${randomBytes(16).toString('hex')}`;
    const created = await org
      .auth(env.t.request.post('/workflows/config'))
      .send({ name: 'META_KEY', value: canary, secret: true, path: '/' });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    await publish(env, org, {
      name: 'Compat log meta',
      key: 'compat-log-meta',
      steps: [
        { id: 'start', type: 'trigger', pluginType: 'manual' },
        {
          id: 'note',
          type: 'module',
          pluginType: 'code-exec',
          inputs: { key: '${{ secrets.META_KEY }}' },
          config: {
            code: [
              "log.info('calling', { user: 'ana', key: inputs.key, n: 2 });",
              "log.warn('two words', 'no object');",
              "console.log('joined', { a: 1 });",
              'return {};',
            ].join('\n'),
          },
          dependsOn: ['start'],
        },
      ],
    });
    const id = await execute(env, org, 'compat-log-meta');
    const done = await waitFor(env, org, id, finished);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    const logs = await org.auth(env.t.request.get(`/workflows/executions/${id}/logs`)).expect(200);
    assert.deepEqual(
      logs.body.data.map((line: { level: string; message: string; metadata?: unknown }) => [line.level, line.message, line.metadata]),
      [
        ['info', 'calling', { user: 'ana', key: '<redacted>', n: 2 }],
        ['warn', 'two words no object', {}],
        ['info', 'joined {"a":1}', {}],
      ],
    );
    const rows = await env.db.query<Array<{ text: string }>>(
      `SELECT row_to_json(l)::text AS text FROM execution_logs l WHERE execution_id = $1`,
      [id],
    );
    for (const row of rows) assert.equal(row.text.includes(canary), false, `a stored log leaks the secret: ${row.text}`);
  });
});
