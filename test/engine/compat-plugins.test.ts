/**
 * Coming from the compatible engine: plugin outputs and settings
 * (docs/definitions.md, "Plugins: outputs and settings"). A definition
 * written for that engine with its generic plugins saves, validates and runs
 * here unchanged, or is refused at publish saying what to write instead.
 * Pure engine with fake effects; the worker's side (a real signal, a real
 * sandbox, a real secret) is test/executions-api/compat-plugins.test.ts.
 */
import assert from 'node:assert/strict';
import { CODE_RETURNS_ARRAY, SETTING_SHADOWED, validateDefinition, type ActivityCall, type WaitResult } from '../../workflows/engine';
import { connections, step, trigger } from '../support/definitions';
import { runDefinition as run } from '../support/engine-run';

const arrived = (payload: unknown): WaitResult => ({
  timedOut: false,
  name: 'approve',
  payload,
  receivedAt: '2026-01-01T00:01:00Z',
  signalId: 'sig_1',
});

describe('coming from the compatible engine: plugins (engine)', () => {
  describe('signal-wait outputs', () => {
    //   start ─▶ w ─▶ ok ─true─▶ yes
    //                    └false─▶ no
    const approval = (expression: string) => ({
      steps: [
        trigger(),
        step('w', 'signal-wait', { signalName: 'approve' }, { type: 'wait', dependsOn: ['start'] }),
        step('ok', 'conditional', { expression }, { dependsOn: ['w'] }),
        step('yes', 'no-op'),
        step('no', 'no-op'),
      ],
      connections: connections('ok:true->yes', 'ok:false->no'),
      outputs: { by: '${{ steps.w.outputs.by }}', alsoBy: '${{ steps.w.outputs.payload.by }}' },
    });

    it("a decider reads the waking payload's keys as the step's outputs (steps.w.outputs.approved)", async () => {
      const { outcome, ctx } = await run(
        approval('steps.w.outputs.approved == true'),
        {},
        {
          signals: () => arrived({ approved: true, by: 'ana' }),
        },
      );
      assert.equal(outcome.status, 'completed');
      assert.deepEqual([ctx.steps.yes.status, ctx.steps.no.status], ['completed', 'skipped']);
      assert.deepEqual(outcome.outputs, { by: 'ana', alsoBy: 'ana' });
      // This project's form reads the same payload.
      const { ctx: ours } = await run(
        approval('steps.w.outputs.payload.approved == true'),
        {},
        {
          signals: () => arrived({ approved: true, by: 'ana' }),
        },
      );
      assert.deepEqual([ours.steps.yes.status, ours.steps.no.status], ['completed', 'skipped']);
    });

    it('keeps the wait metadata (name, payload, receivedAt, signalId, timedOut) beside the payload keys', async () => {
      const { ctx } = await run(approval('true'), {}, { signals: () => arrived({ approved: true }) });
      assert.deepEqual(ctx.steps.w.outputs, {
        name: 'approve',
        payload: { approved: true },
        receivedAt: '2026-01-01T00:01:00Z',
        signalId: 'sig_1',
        timedOut: false,
        approved: true,
      });
    });

    it('on a key collision the metadata wins, and a warning names the payload key and where to read it', async () => {
      const { ctx, logs } = await run(
        approval('true'),
        {},
        {
          signals: () => arrived({ name: 'Ana', timedOut: true, approved: true }),
        },
      );
      assert.equal(ctx.steps.w.outputs.name, 'approve');
      assert.equal(ctx.steps.w.outputs.timedOut, false, 'a payload cannot pretend the wait timed out');
      assert.equal(ctx.steps.w.outputs.approved, true);
      assert.deepEqual(ctx.steps.w.outputs.payload, { name: 'Ana', timedOut: true, approved: true });
      const warning = logs.find((line) => line.stepId === 'w' && line.level === 'warn');
      assert.ok(warning, 'the shadowed keys are reported');
      assert.match(warning.message, /"name", "timedOut"/);
      assert.match(warning.message, /steps\.w\.outputs\.payload\.name, steps\.w\.outputs\.payload\.timedOut/);
    });

    it('a payload that is not a plain object is only under payload; a __proto__ key stays an own key', async () => {
      const { ctx, logs } = await run(approval('true'), {}, { signals: () => arrived(['a', 'b']) });
      assert.deepEqual(ctx.steps.w.outputs.payload, ['a', 'b']);
      assert.equal(Object.hasOwn(ctx.steps.w.outputs, '0'), false);
      assert.equal(
        logs.some((line) => line.level === 'warn'),
        false,
      );
      const hostile = JSON.parse('{"__proto__": {"polluted": true}, "ok": 1}') as Record<string, unknown>;
      const { ctx: second } = await run(approval('true'), {}, { signals: () => arrived(hostile) });
      assert.equal(second.steps.w.outputs.ok, 1);
      assert.equal(Object.hasOwn(second.steps.w.outputs, '__proto__'), true);
      assert.equal((second.steps.w.outputs as { polluted?: unknown }).polluted, undefined);
    });

    it('onTimeout continue: defaultValue stands for the payload, its keys read the same way', async () => {
      const { ctx } = await run({
        steps: [
          trigger(),
          step(
            'w',
            'signal-wait',
            { signalName: 'approve', timeout: '1m', onTimeout: 'continue', defaultValue: { approved: false } },
            { type: 'wait', dependsOn: ['start'] },
          ),
        ],
      });
      assert.deepEqual(ctx.steps.w.outputs, {
        name: null,
        payload: { approved: false },
        receivedAt: null,
        signalId: null,
        timedOut: true,
        approved: false,
      });
    });
  });

  describe('code-exec result', () => {
    const warningsFor = (config: Record<string, unknown>) =>
      validateDefinition({ name: 'x', steps: [trigger(), step('c', 'code-exec', config, { dependsOn: ['start'] })] }).warnings;

    it('warns at publish when the code visibly returns an array and returns is not set, naming the fix', () => {
      for (const code of [
        'return [1, 2]',
        'const list = inputs.rows;\nif (list) { return list.map((r) => ({ id: r.id })); }\nreturn [];',
        'return await Array.from({ length: 2 })',
        'return (Array.of(1))',
        "return ['${{ workflow.inputs.who }}']",
      ]) {
        const warnings = warningsFor({ code });
        assert.deepEqual(
          warnings.map((w) => [w.code, w.path]),
          [[CODE_RETURNS_ARRAY, '/steps/1/config/code']],
          code,
        );
        assert.match(warnings[0].message, /\{result: \[\.\.\.\]\}.*returns: items/);
      }
    });

    it('does not warn for an object, a return inside a function, returns set either way, or code that does not parse', () => {
      for (const config of [
        { code: 'return { items: [1, 2] }' },
        { code: 'const f = () => { return [1]; };\nreturn { n: f().length };' },
        { code: 'function g() { return [1]; }\nreturn g;' },
        { code: 'return [1, 2]', returns: 'items' },
        { code: 'return [1, 2]', returns: 'output' },
        { code: 'return [1, 2' },
      ])
        assert.deepEqual(warningsFor(config), [], JSON.stringify(config));
    });
  });

  describe('plugin settings in a step inputs map', () => {
    const validate = (doc: Record<string, unknown>) => validateDefinition({ name: 'x', ...doc });
    const echo = (call: ActivityCall) => ({ status: 'success' as const, outputs: { config: call.config, inputs: call.inputs } });

    it('runs the quick-start form: url, method, message and code written under inputs are read as config', async () => {
      //   start ─▶ fetch ─▶ note ─▶ calc
      const doc = {
        steps: [
          trigger(),
          {
            id: 'fetch',
            type: 'module',
            pluginType: 'http-request',
            inputs: { url: 'https://api.test/${{ workflow.inputs.id }}', method: 'POST', ticket: '${{ workflow.inputs.id }}' },
            dependsOn: ['start'],
          },
          { id: 'note', type: 'module', pluginType: 'log', inputs: { message: 'fetched ${{ workflow.inputs.id }}' }, dependsOn: ['fetch'] },
          {
            id: 'calc',
            type: 'module',
            pluginType: 'code-exec',
            inputs: { code: 'return { n: inputs.n + 1 }', n: 1 },
            dependsOn: ['note'],
          },
        ],
      };
      const validated = validate(doc);
      assert.deepEqual([validated.errors, validated.warnings], [[], []]);
      // Stored as read: the settings in config (kept in inputs too), a script only in config (and what its result
      // means, stamped into every newer revision).
      assert.deepEqual(validated.definition!.steps.fetch.config, { url: 'https://api.test/${{ workflow.inputs.id }}', method: 'POST' });
      assert.deepEqual(validated.definition!.steps.calc.config, { code: 'return { n: inputs.n + 1 }', returns: 'output' });
      assert.deepEqual(validated.definition!.steps.calc.inputs, { n: 1 });

      const { outcome, calls, logs } = await run(doc, { id: 7 }, { activities: { 'http-request': echo, 'code-exec': echo } });
      assert.equal(outcome.status, 'completed', JSON.stringify(outcome.error));
      const [fetch, calc] = calls;
      assert.deepEqual(fetch.config, { url: 'https://api.test/7', method: 'POST' });
      assert.deepEqual(fetch.inputs, { url: 'https://api.test/7', method: 'POST', ticket: 7 });
      assert.equal(calc.config.code, 'return { n: inputs.n + 1 }');
      assert.deepEqual(calc.inputs, { n: 1 });
      assert.deepEqual(
        logs.filter((line) => line.stepId === 'note').map((line) => line.message),
        ['fetched 7'],
      );
      // Publishing the stored form again changes nothing and warns about nothing.
      const { triggers: _rebuilt, ...stored } = validated.definition!;
      const again = validate(stored);
      assert.deepEqual([again.errors, again.warnings], [[], []]);
      assert.deepEqual(again.definition!.steps, validated.definition!.steps);
    });

    it('checks a setting written under inputs like config, naming the inputs path', () => {
      const { errors } = validate({
        steps: [
          trigger(),
          { id: 'fetch', type: 'module', pluginType: 'http-request', inputs: { url: 'https://x', method: 'FETCH' }, dependsOn: ['start'] },
        ],
      });
      assert.deepEqual(
        errors.map((e) => e.path),
        ['/steps/1/inputs/method'],
      );
      const missing = validate({
        steps: [trigger(), { id: 'note', type: 'module', pluginType: 'log', inputs: { text: 'hi' }, dependsOn: ['start'] }],
      });
      assert.deepEqual(missing.errors, [{ path: '/steps/1/config/message', message: 'is required' }]);
    });

    it('reads either spelling (on_timeout) and a wait step without pluginType', () => {
      const { errors, definition } = validate({
        steps: [
          trigger(),
          { id: 'w', type: 'wait', inputs: { signal_name: 'go', timeout: '1h', on_timeout: 'continue' }, dependsOn: ['start'] },
        ],
      });
      assert.deepEqual(errors, []);
      assert.deepEqual(definition!.steps.w.config, { signalName: 'go', timeout: '1h', onTimeout: 'continue' });
    });

    it('config wins over the same setting in inputs; a different value draws SETTING_IN_INPUTS_SHADOWED', async () => {
      const doc = (inputsCode: string) => ({
        steps: [
          trigger(),
          {
            id: 'calc',
            type: 'module',
            pluginType: 'code-exec',
            // A country code as data for the script, beside the script itself: config.code is the setting.
            inputs: { code: inputsCode },
            config: { code: 'return { country: inputs.code }' },
            dependsOn: ['start'],
          },
        ],
      });
      const shadowed = validate(doc('UY'));
      assert.deepEqual(shadowed.errors, []);
      assert.deepEqual(
        shadowed.warnings.map((w) => [w.code, w.path]),
        [[SETTING_SHADOWED, '/steps/1/inputs/code']],
      );
      assert.match(shadowed.warnings[0].message, /config\.code is the setting, and inputs\.code is data only/);
      const { calls } = await run(doc('UY'), {}, { activities: { 'code-exec': echo } });
      assert.deepEqual([calls[0].config.code, calls[0].inputs.code], ['return { country: inputs.code }', 'UY']);
      assert.deepEqual(validate(doc('return { country: inputs.code }')).warnings, []);
    });

    it("never reads a predecessor's output as settings: only the definition's own inputs map counts", async () => {
      //   start ─▶ source(returns {url}) ─▶ fetch (no inputs map)
      const { calls } = await run(
        {
          steps: [
            trigger(),
            { id: 'source', type: 'module', pluginType: 'code-exec', config: { code: 'return {}' }, dependsOn: ['start'] },
            { id: 'fetch', type: 'module', pluginType: 'http-request', config: { url: 'https://safe.test' }, dependsOn: ['source'] },
          ],
        },
        {},
        {
          activities: {
            'code-exec': () => ({ status: 'success', outputs: { url: 'https://evil.test', method: 'DELETE' } }),
            'http-request': echo,
          },
        },
      );
      assert.deepEqual(calls[1].config, { url: 'https://safe.test' });
      assert.equal(calls[1].inputs.url, 'https://evil.test', 'the item is data the plugin receives, nothing more');
    });
  });

  describe('set-variable name and value (an older documented form)', () => {
    it('writes the variable named by name, written under config or under inputs', async () => {
      //   start ─▶ one ─▶ two
      const { outcome, ctx } = await run(
        {
          variables: { approved: { initialValue: false } },
          steps: [
            trigger(),
            step('one', 'set-variable', { name: 'approved', value: '${{ workflow.inputs.ok }}' }, { dependsOn: ['start'] }),
            { id: 'two', type: 'module', pluginType: 'set-variable', inputs: { name: 'count', value: 3 }, dependsOn: ['one'] },
          ],
          outputs: { approved: '${{ variables.approved }}', count: '${{ variables.count }}' },
        },
        { ok: true },
      );
      assert.equal(outcome.status, 'completed', JSON.stringify(outcome.error));
      assert.deepEqual(outcome.outputs, { approved: true, count: 3 });
      assert.deepEqual(ctx.steps.one.outputs, { name: 'approved', value: true });
      assert.deepEqual(ctx.steps.two.outputs, { name: 'count', value: 3 });
    });

    it('refuses at publish both path and name, and a dotted name, saying what to write', () => {
      const errorsOf = (where: 'config' | 'inputs', values: Record<string, unknown>) =>
        validateDefinition({
          name: 'x',
          steps: [trigger(), { id: 's', type: 'module', pluginType: 'set-variable', [where]: values, dependsOn: ['start'] }],
        }).errors;
      assert.deepEqual(errorsOf('config', { path: 'a', name: 'a', value: 1 }), [
        { path: '/steps/1/config/name', message: 'set-variable takes path or name (its older spelling), not both: keep one' },
      ]);
      const dotted = errorsOf('inputs', { name: 'user.role', value: 1 });
      assert.deepEqual(
        dotted.map((e) => e.path),
        ['/steps/1/inputs/name'],
      );
      assert.match(dotted[0].message, /without dots.*write path: a\.b/);
    });
  });

  describe('log mixing data and a secret', () => {
    it('renders the data and shows each segment that reads a secret as <redacted>, loading no secret', async () => {
      //   start ─▶ note(log)
      const { outcome, calls, logs, ctx } = await run(
        {
          steps: [
            trigger(),
            step(
              'note',
              'log',
              {
                message:
                  'user ${{ workflow.inputs.user }} uses key ${{ secrets.API_KEY }} (${{ len(secrets.API_KEY) }} chars) at ${{ vars.REGION }}',
                metadata: { token: '${{ secrets.API_KEY }}', who: '${{ workflow.inputs.user }}', mixed: 'k=${{ secrets.API_KEY }}' },
              },
              { dependsOn: ['start'] },
            ),
          ],
        },
        { user: 'ana' },
      );
      assert.equal(outcome.status, 'completed');
      assert.equal(calls.length, 0, 'no activity: nothing resolved a secret');
      const line = logs.find((entry) => entry.stepId === 'note');
      assert.equal(line?.message, 'user ana uses key <redacted> (<redacted> chars) at eu');
      assert.deepEqual(line?.metadata, { token: '<redacted>', who: 'ana', mixed: 'k=<redacted>' });
      assert.equal(ctx.steps.note.outputs.message, 'user ana uses key <redacted> (<redacted> chars) at eu');
    });

    it('masks a secret in a log message written under inputs too', async () => {
      const { logs } = await run(
        {
          steps: [
            trigger(),
            { id: 'note', type: 'module', pluginType: 'log', inputs: { message: '${{ secrets.API_KEY }}' }, dependsOn: ['start'] },
          ],
        },
        {},
      );
      assert.equal(logs.find((entry) => entry.stepId === 'note')?.message, '<redacted>');
    });
  });

  describe('secrets in other steps that run inside the workflow', () => {
    it('refuses at publish a secret read by set-variable, a decider or a signal-wait (it would reach them as raw text), naming what to do', () => {
      const errorsOf = (steps: unknown[]) => validateDefinition({ name: 'x', steps: [trigger(), ...steps] }).errors;
      const refused = [
        step('keep', 'set-variable', { path: 'token', value: '${{ secrets.API_KEY }}' }, { dependsOn: ['start'] }),
        {
          id: 'route',
          type: 'decider',
          pluginType: 'conditional',
          config: { expression: 'secrets.API_KEY == "x"' },
          dependsOn: ['start'],
        },
        step('wait', 'signal-wait', { signalName: 'go', correlationKey: '${{ secrets.TICKET }}' }, { dependsOn: ['start'] }),
      ];
      for (const [index, refusedStep] of refused.entries()) {
        const errors = errorsOf([refusedStep]);
        assert.deepEqual(
          errors.map((e) => e.path),
          ['/steps/1/config'],
          JSON.stringify(errors),
        );
        assert.match(
          errors[0].message,
          /runs inside the workflow, where secrets are never loaded: it cannot read secrets\.(API_KEY|TICKET)/,
          String(index),
        );
        assert.match(errors[0].message, /http-request, code-exec/);
      }
    });

    it('accepts a secret where it is loaded (an activity step, a webhook trigger) or masked (log)', () => {
      const errors = validateDefinition({
        name: 'x',
        steps: [
          { id: 'start', type: 'trigger', pluginType: 'webhook', config: { secret: '${{ secrets.HOOK }}' } },
          step(
            'call',
            'http-request',
            { url: 'https://api.test/', headers: { Authorization: '${{ secrets.API_KEY }}' } },
            { dependsOn: ['start'] },
          ),
          step('note', 'log', { message: 'key ${{ secrets.API_KEY }}' }, { dependsOn: ['call'] }),
        ],
      }).errors;
      assert.deepEqual(errors, []);
    });
  });
});
