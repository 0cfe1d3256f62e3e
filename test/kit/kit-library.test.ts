import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  DefinitionInvalid,
  InputsInvalid,
  WorkflowRunFailed,
  loadDefinition,
  normalizeDefinition,
  runWorkflow,
  validateDefinition,
} from '../../kit';
import { TEST_EGRESS } from '../support/egress';
import { chain, connections, doc, step, trigger } from '../support/definitions';

const BROKEN_YAML = `name: broken
path: /t
steps:
  - id: start
    type: trigger
    pluginType: manual
  - id: call
    type: module
    pluginType: http-requestt
    dependsOn: [start]
`;

describe('kit library: load, normalize, validate', () => {
  it('reports a YAML error at its line and column, and a syntax error too', () => {
    const loaded = loadDefinition(BROKEN_YAML);
    assert.equal(loaded.errors.length, 1);
    assert.equal(loaded.errors[0].path, '/steps/1/pluginType');
    assert.match(loaded.errors[0].message, /Unknown plugin type: http-requestt/);
    assert.deepEqual([loaded.errors[0].line, loaded.errors[0].column], [9, 17]);

    assert.deepEqual(loadDefinition('flows/missing.yaml').errors, [{ path: '', message: 'no such file: flows/missing.yaml' }]);

    const syntax = loadDefinition('name: x\nsteps: [\n  {id: a\n');
    assert.equal(syntax.definition, undefined);
    assert.ok(syntax.errors[0].line! >= 2, JSON.stringify(syntax.errors));
  });

  it('reads a file by path (JSON too) and normalizes as the API does, leaving config untouched', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'kit-'));
    const file = path.join(dir, 'flow.json');
    writeFileSync(
      file,
      JSON.stringify({
        name: 'n',
        path: '/t',
        steps: [
          { id: 'start', type: 'trigger', plugin_type: 'manual' },
          {
            id: 'call',
            type: 'module',
            plugin_type: 'vendor-thing',
            depends_on: ['start'],
            config: { snake_key: 1 },
            error_handling: { retry_policy: { max_retries: 2 } },
          },
        ],
      }),
    );
    const loaded = loadDefinition(file, { plugins: { 'vendor-thing': () => ({}) } });
    assert.deepEqual(loaded.errors, []);
    assert.equal(loaded.file, file);
    const call = loaded.definition!.steps.call;
    assert.equal(call.pluginType, 'vendor-thing');
    assert.deepEqual(call.config, { snake_key: 1 });
    assert.equal(call.errorHandling?.retryPolicy?.maxRetries, 2);
    assert.deepEqual(
      loaded.definition!.connections.map((c) => [c.from, c.to]),
      [['start', 'call']],
    );

    const normalized = normalizeDefinition({
      name: 'n',
      path: '/t',
      steps: [{ id: 'a', type: 'module', plugin_type: 'no-op', config: { a_b: 1 } }],
    });
    assert.deepEqual(Object.keys(normalized.steps), ['a']);
    assert.deepEqual(normalized.steps.a.config, { a_b: 1 });
  });

  it('validates with the plugins stubs register: unknown vendor plugins and their ports', () => {
    //   start ─▶ vendor ─approved─▶ done
    const definition: Record<string, unknown> = {
      ...doc([trigger(), step('vendor', 'acme-approval'), step('done', 'no-op')]),
      connections: connections('start->vendor', 'vendor:approved->done'),
    };
    const bare = validateDefinition(definition);
    assert.equal(bare.ok, false);
    assert.ok(bare.errors.some((e) => /Unknown plugin type: acme-approval/.test(e.message)));

    const stubbed = validateDefinition(definition, {
      plugins: { 'acme-approval': { handler: () => ({}), kind: 'module', ports: { outputs: [{ name: 'approved' }] } } },
    });
    assert.deepEqual(stubbed.errors, []);
    assert.equal(stubbed.ok, true);
    // A vendor stub declares no config schema, so its config keys draw no "has no effect" warning.
    const configured = validateDefinition(
      {
        ...definition,
        steps: (definition.steps as Array<Record<string, unknown>>).map((s) => (s.id === 'vendor' ? { ...s, config: { level: 1 } } : s)),
      },
      { plugins: { 'acme-approval': { handler: () => ({}), ports: { outputs: [{ name: 'approved' }] } } } },
    );
    assert.deepEqual(configured.warnings, []);

    const wrongPort = validateDefinition(
      { ...definition, connections: connections('start->vendor', 'vendor:rejected->done') },
      { plugins: { 'acme-approval': { handler: () => ({}), ports: { outputs: [{ name: 'approved' }] } } } },
    );
    assert.ok(wrongPort.errors.some((e) => /no output port "rejected"/.test(e.message)));
  });
});

describe('kit library: runWorkflow', () => {
  let server: Server;
  let baseUrl: string;
  let hits = 0;

  before(async () => {
    server = createServer((req, res) => {
      hits += 1;
      if (req.url?.startsWith('/flaky') && hits % 2 === 1) {
        res.writeHead(503).end('busy');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ path: req.url, auth: req.headers.authorization ?? null }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise((resolve) => server.close(resolve)));

  it('runs stubs with resolved inputs and config, real inline plugins, and shapes the result', async () => {
    //   start ─▶ lookup(stub) ─▶ remember(set-variable) ─▶ check(conditional) ─true─▶ big(log)
    //                                                                      └false─▶ small(log)
    const seen: unknown[] = [];
    const result = await runWorkflow({
      definition: {
        ...doc([
          trigger(),
          step(
            'lookup',
            'http-request',
            { url: '${{ vars.BASE }}/users/${{ inputs.user }}' },
            { dependsOn: ['start'], inputs: { user: '${{ workflow.inputs.user }}' } },
          ),
          step('remember', 'set-variable', { path: 'score', value: '${{ steps.lookup.outputs.body.score }}' }, { dependsOn: ['lookup'] }),
          step('check', 'conditional', { expression: 'variables.score > 10' }, { dependsOn: ['remember'] }),
          step('big', 'log', { message: 'big ${{ variables.score }}' }),
          step('small', 'log', { message: 'small' }),
        ]),
        connections: connections('check:true->big', 'check:false->small'),
        variables: { score: { initialValue: 0 } },
        outputs: { score: '${{ variables.score }}' },
      },
      inputs: { user: 'ann' },
      vars: { BASE: 'https://users.example' },
      stubs: {
        'http-request': (ctx) => {
          seen.push({ inputs: ctx.inputs, url: ctx.config.url, attempt: ctx.attempt, stepId: ctx.stepId, variables: ctx.variables });
          // A stub of a built-in answers in its shape (http-request: statusCode, body…), which the validator checks reads against.
          return { statusCode: 200, body: { score: 42 } };
        },
      },
    });
    assert.equal(result.status, 'completed', JSON.stringify(result.error));
    assert.deepEqual(seen, [
      { inputs: { user: 'ann' }, url: 'https://users.example/users/ann', attempt: 1, stepId: 'lookup', variables: { score: 0 } },
    ]);
    assert.deepEqual(result.outputs, { score: 42 });
    assert.deepEqual(result.variables, { score: 42 });
    assert.equal(result.steps.big.status, 'completed');
    assert.equal(result.steps.small.status, 'skipped');
    assert.deepEqual(result.steps.lookup.inputs, { user: 'ann' });
    assert.deepEqual(result.steps.lookup.outputs, { statusCode: 200, body: { score: 42 } });
    assert.deepEqual(result.steps.check.activePorts, ['true']);
    assert.equal(result.steps.lookup.runs, 1);
    assert.deepEqual(
      result.logs.map((log) => [log.stepId, log.message]),
      [['big', 'big 42']],
    );
    assert.match(result.executionId, /^exec_local_/);
  });

  it('fails a step on a stub failure or throw, and throwOnFailure names the step and keeps the message', async () => {
    const definition = doc(chain(trigger(), step('pay', 'acme-pay'), step('after', 'no-op')));
    const failed = await runWorkflow({
      definition,
      stubs: { 'acme-pay': () => ({ status: 'failure', error: { message: 'card declined', code: 'DECLINED' } }) },
    });
    assert.equal(failed.status, 'failed');
    assert.deepEqual(failed.error, { type: 'DECLINED', message: 'card declined', stepId: 'pay' });
    assert.equal(failed.steps.pay.status, 'failed');
    assert.equal(failed.steps.after, undefined);

    await assert.rejects(
      runWorkflow({
        definition,
        throwOnFailure: true,
        stubs: {
          'acme-pay': () => {
            throw new Error('gateway exploded');
          },
        },
      }),
      (error: unknown) => {
        assert.ok(error instanceof WorkflowRunFailed);
        assert.match(error.message, /step "pay" failed: gateway exploded/);
        return true;
      },
    );
  });

  it('retries under the step policy with attempt numbers, and the instant clock makes back-off and delays free', async () => {
    //   start ─▶ nap(delay 2h) ─▶ flaky(stub, 3 attempts)
    const attempts: number[] = [];
    const started = Date.now();
    const result = await runWorkflow({
      definition: doc(
        chain(
          trigger(),
          step('nap', 'delay', { duration: '2h' }),
          step('flaky', 'acme-flaky', {}, { errorHandling: { retryPolicy: { maxAttempts: 3, initialInterval: '10m' } } }),
        ),
      ),
      stubs: {
        'acme-flaky': (ctx) => {
          attempts.push(ctx.attempt);
          if (ctx.attempt < 3) throw new Error('try again');
          return { ok: true };
        },
      },
    });
    assert.equal(result.status, 'completed', JSON.stringify(result.error));
    assert.deepEqual(attempts, [1, 2, 3]);
    assert.ok(Date.now() - started < 2000);
  });

  it('needs vars and secrets by default, and missingConfig undefined lets defaults apply; secrets are scrubbed', async () => {
    const definition = doc(
      chain(trigger(), step('call', 'acme-call', { region: "${{ vars.REGION || 'eu' }}", token: '${{ secrets.TOKEN }}' })),
    );
    const echo = { 'acme-call': (ctx: { config: Record<string, unknown> }) => ({ ...ctx.config }) };
    const missing = await runWorkflow({ definition, stubs: echo, secrets: { TOKEN: 's3cr3t-value' } });
    assert.equal(missing.status, 'failed');
    assert.equal(missing.error?.type, 'CONFIG_ENTRY_UNRESOLVED');

    const missingSecret = await runWorkflow({ definition, stubs: echo, vars: { REGION: 'us' } });
    assert.equal(missingSecret.error?.type, 'CONFIG_ENTRY_UNRESOLVED');
    assert.match(missingSecret.error.message, /TOKEN/);

    const lenient = await runWorkflow({ definition, stubs: echo, missingConfig: 'undefined', secrets: { TOKEN: 's3cr3t-value' } });
    assert.equal(lenient.status, 'completed', JSON.stringify(lenient.error));
    assert.deepEqual(lenient.steps.call.outputs, { region: 'eu', token: '<redacted>' });
  });

  it('runs http-request for real against a server (egress policy given), with retries on 503', async () => {
    const result = await runWorkflow({
      definition: doc(
        chain(
          trigger(),
          step(
            'get',
            'http-request',
            { url: `${baseUrl}/flaky/items`, headers: { authorization: 'Bearer ${{ secrets.KEY }}' } },
            { errorHandling: { retryPolicy: { maxAttempts: 3, initialInterval: '1s' } } },
          ),
        ),
      ),
      secrets: { KEY: 'top-secret-key' },
      egress: TEST_EGRESS,
    });
    assert.equal(result.status, 'completed', JSON.stringify(result.error));
    const body = (result.steps.get.outputs as { body?: { path?: string; auth?: string } }).body;
    assert.equal(body?.path, '/flaky/items');
    assert.equal(body?.auth, 'Bearer <redacted>');

    const denied = await runWorkflow({ definition: doc(chain(trigger(), step('get', 'http-request', { url: `${baseUrl}/x` }))) });
    assert.equal(denied.status, 'failed');
    assert.match(denied.error!.message, /EGRESS_ALLOW_CIDRS|not allowed/);
  });

  it('runs code-exec in its real sandbox', async () => {
    const result = await runWorkflow({
      definition: doc(chain(trigger(), step('calc', 'code-exec', { code: 'return { doubled: inputs.n * 2 };' }))),
      inputs: { n: 21 },
    });
    assert.equal(result.status, 'completed', JSON.stringify(result.error));
    assert.deepEqual(result.steps.calc.outputs, { doubled: 42 });
  });

  it('binds the templates of code-exec code as values, and refuses one that would be code, as the server does', async () => {
    const who = "'+key.split('').join('~')+'";
    const code = "const key = '${{ secrets.KEY }}'; const who = '${{ workflow.inputs.who }}'; return { who, n: key.length };";
    const result = await runWorkflow({
      definition: doc(chain(trigger(), step('greet', 'code-exec', { code }))),
      inputs: { who },
      secrets: { KEY: 's3cr3t-value' },
    });
    assert.equal(result.status, 'completed', JSON.stringify(result.error));
    assert.deepEqual(result.steps.greet.outputs, { who, n: 12 });
    const refused = validateDefinition(doc(chain(trigger(), step('greet', 'code-exec', { code: 'return /${{ workflow.inputs.p }}/' }))));
    assert.deepEqual(
      refused.errors.map((error) => error.path),
      ['/steps/1/config/code'],
    );
  });

  it('answers waits from signals (or times them out) and runs sub-workflows from the workflows option', async () => {
    //   start ─▶ approval(wait) ─▶ child(sub-workflow "double")
    const parent = doc(
      chain(
        trigger(),
        { id: 'approval', type: 'wait', config: { signalName: 'approve', timeout: '1d' } },
        step('child', 'sub-workflow', { workflowId: 'double', inputs: { n: '${{ signal.payload.n }}' } }),
      ),
    );
    const double = {
      name: 'double',
      key: 'double',
      path: '/kit',
      steps: chain(trigger(), step('calc', 'set-variable', { path: 'out', value: '${{ workflow.inputs.n * 2 }}' })),
      variables: { out: {} },
      outputs: { value: '${{ variables.out }}' },
    };
    const waits: unknown[] = [];
    const result = await runWorkflow({
      definition: parent,
      workflows: { double },
      signals: (wait) => {
        waits.push(wait);
        return { payload: { n: 4 } };
      },
    });
    assert.equal(result.status, 'completed', JSON.stringify(result.error));
    assert.deepEqual(waits, [{ stepId: 'approval', name: 'approve', signalNames: ['approve'], timeoutMs: 86_400_000 }]);
    assert.deepEqual((result.steps.child.outputs as { outputs: unknown }).outputs, { value: 8 });

    const timedOut = await runWorkflow({ definition: parent, workflows: { double }, signals: () => 'timeout' });
    assert.equal(timedOut.status, 'failed');
    assert.equal(timedOut.error?.type, 'SIGNAL_WAIT_TIMEOUT');

    const unknownChild = await runWorkflow({ definition: parent, signals: () => ({ payload: { n: 1 } }) });
    assert.equal(unknownChild.error?.type, 'WORKFLOW_NOT_FOUND');

    // A wait nobody answers: its timeout fires (instantly); without a timeout the step fails rather than hang.
    const unanswered = await runWorkflow({ definition: parent, workflows: { double } });
    assert.equal(unanswered.error?.type, 'SIGNAL_WAIT_TIMEOUT');
    const forever = await runWorkflow({
      definition: doc(chain(trigger(), { id: 'approval', type: 'wait', config: { signalName: 'approve' } })),
    });
    assert.equal(forever.error?.type, 'SIGNAL_NOT_ANSWERED');
    assert.match(forever.error.message, /step "approval" waits on signal "approve" without a timeout/);
  });

  it('stops a tree at its budget, all depths together, as the server does', async () => {
    //   start ─▶ again(sub-workflow "fan") ─▶ more(sub-workflow "fan"): every run starts two more
    const fan = doc(
      chain(
        trigger(),
        step('again', 'sub-workflow', { workflowId: 'fan', iterateItems: false }),
        step('more', 'sub-workflow', { workflowId: 'fan', iterateItems: false }),
      ),
    );
    const result = await runWorkflow({ definition: fan, workflows: { fan }, limits: { maxExecutionsPerTree: 4 } });
    assert.equal(result.status, 'failed');
    assert.equal(result.error?.type, 'SUBWORKFLOW_TREE_BUDGET_EXCEEDED');
    assert.match(result.error.message, /may hold at most 4 executions below its root \(WORKFLOW_MAX_EXECUTIONS_PER_TREE\)/);
  });

  it('a stub replaces a built-in inline plugin and declares a trigger’s ports; triggerPort picks the port', async () => {
    //   hook(webhook stub) ─test─▶ probe(log stub)
    //                     └default─▶ never
    const definition = {
      ...doc([trigger('hook', 'acme-hook'), step('probe', 'log', { message: 'hi' }), step('never', 'no-op')]),
      connections: connections('hook:test->probe', 'hook->never'),
    };
    const messages: unknown[] = [];
    const result = await runWorkflow({
      definition,
      trigger: 'hook',
      triggerPort: 'test',
      inputs: { ping: 1 },
      stubs: {
        'acme-hook': { kind: 'trigger', ports: { outputs: [{ name: 'test' }] } },
        log: (ctx) => {
          messages.push([ctx.config.message, ctx.inputs]);
          return { logged: true };
        },
      },
    });
    assert.equal(result.status, 'completed', JSON.stringify(result.error));
    assert.deepEqual(messages, [['hi', { ping: 1 }]]);
    assert.equal(result.steps.never.status, 'skipped');
    assert.deepEqual(result.logs, []);
  });

  it('checks a manual start’s inputs against the trigger’s declarations, as the API does', async () => {
    const definition = doc(
      chain(
        trigger('start', 'manual', { inputs: { service: { type: 'string', required: true }, replicas: { type: 'integer' } } }),
        step('go', 'no-op'),
      ),
    );
    await assert.rejects(runWorkflow({ definition, inputs: { replicas: 1.5 } }), (error: unknown) => {
      assert.ok(error instanceof InputsInvalid);
      assert.deepEqual(error.errors, [
        { path: '/inputs/service', message: 'is required' },
        { path: '/inputs/replicas', message: 'must be of type integer' },
      ]);
      return true;
    });
    assert.equal((await runWorkflow({ definition, inputs: { service: 'api', replicas: 2 } })).status, 'completed');
  });

  it('refuses an invalid definition with every error', async () => {
    await assert.rejects(runWorkflow({ definition: doc([trigger(), step('x', 'nope')]) }), (error: unknown) => {
      assert.ok(error instanceof DefinitionInvalid);
      assert.match(error.message, /Unknown plugin type: nope/);
      return true;
    });
  });

  it('merges the forEach element into a stub’s inputs, one fresh copy per call', async () => {
    const calls: unknown[] = [];
    const result = await runWorkflow({
      definition: doc(
        chain(
          trigger(),
          step('each', 'acme-each', {}, { inputs: { tag: 'x' }, forEach: { expression: 'workflow.inputs.list', itemVariable: 'item' } }),
        ),
      ),
      inputs: { list: [1, 2] },
      stubs: {
        'acme-each': (ctx) => {
          calls.push({ ...ctx.inputs });
          ctx.inputs.tag = 'mutated';
          return {};
        },
      },
    });
    assert.equal(result.status, 'completed', JSON.stringify(result.error));
    assert.deepEqual(calls, [
      { tag: 'x', item: 1, index: 0 },
      { tag: 'x', item: 2, index: 1 },
    ]);
  });
  it('honours a stub’s execute mode (one call with the batch in `all` mode) and waits for real on the real clock', async () => {
    //   start ─▶ split(code-exec: three items) ─▶ batch(stub, all) ─▶ nap(delay 60ms)
    const batches: unknown[] = [];
    const definition = doc(
      chain(
        trigger(),
        step('split', 'code-exec', { code: 'return [{ n: 1 }, { n: 2 }, { n: 3 }];', returns: 'items' }),
        step('batch', 'acme-batch'),
        step('nap', 'delay', { duration: '60ms' }),
      ),
    );
    const stubs = {
      'acme-batch': {
        executeMode: 'all' as const,
        handler: ({ items }: { items: unknown[] }) => {
          batches.push(items);
          return { count: items.length };
        },
      },
    };
    const started = Date.now();
    const result = await runWorkflow({ definition, stubs, clock: 'real', throwOnFailure: true });
    assert.ok(Date.now() - started >= 60);
    assert.deepEqual(batches, [[{ n: 1 }, { n: 2 }, { n: 3 }]]);
    assert.deepEqual(result.steps.batch.outputs, { count: 3 });
  });
});
