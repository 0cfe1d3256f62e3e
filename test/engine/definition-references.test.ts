/**
 * References are checked at publish (issue 38): each typo class the validator used to pass (and the run then read
 * as an empty string) is an error naming the step, the reference and the likely fix; a step that may not have run is
 * a warning.
 *
 *   start ─▶ hello(log) ─▶ call(http-request) ─▶ report(log) ─▶ after(log)
 */
import assert from 'node:assert/strict';
import { INPUT_UNDECLARED, REFERENCE_MAY_NOT_RESOLVE, validateDefinition, type PluginDescriptor } from '../../workflows/engine';
import { chain, connections, step, trigger } from '../support/definitions';

/** The chain above, `report` logging `message`; the manual trigger declares the input `who`. */
function reading(message: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'refs',
    steps: chain(
      trigger('start', 'manual', { inputs: { who: { type: 'string' } } }),
      step('hello', 'log', { message: 'hi' }),
      step('call', 'http-request', { url: 'https://deploy.example.test' }),
      step('report', 'log', { message }),
      step('after', 'log', { message: 'done' }),
    ),
    ...extra,
  };
}

const errorsOf = (doc: unknown) => validateDefinition(doc).errors.map((e) => `${e.path} ${e.message}`);
const warningsOf = (doc: unknown) => validateDefinition(doc).warnings.map((w) => `${w.code} ${w.path} ${w.message}`);

describe('engine: references are checked at publish', () => {
  it('accepts references that resolve: roots, upstream steps, declared fields, inputs', () => {
    const result = validateDefinition(
      reading(
        'HTTP ${{ steps.call.outputs.statusCode }} ${{ steps.call.outputs.body.anything.deep }} ${{ steps.hello.outputs.message }} ' +
          '${{ workflow.inputs.who }} ${{ execution.id }} ${{ trigger.payload.x }} ${{ vars.BASE }} ${{ steps.call.status }} ' +
          '${{ steps.call.error.message }} ${{ len(steps.call.items) }} ${{ steps.call.outputs.body.name.trim() }} ${{ $item.x }}',
      ),
    );
    assert.deepEqual(result.errors, []);
    assert.deepEqual(result.warnings, []);
  });

  it('refuses a step that does not exist, suggesting the closest id', () => {
    assert.deepEqual(errorsOf(reading('x=${{ steps.nosuch.outputs.x }} y=${{ steps.cal.outputs.body }}')), [
      '/steps/3/config/message step "report" reads `steps.nosuch.outputs.x`: there is no step "nosuch"',
      '/steps/3/config/message step "report" reads `steps.cal.outputs.body`: there is no step "cal"; did you mean `steps.call`?',
    ]);
  });

  it('refuses an unknown root and an unknown field of a fixed root (workflow.input for workflow.inputs)', () => {
    const errors = errorsOf(reading('w=${{ workflow.input.who }} f=${{ flow.x }} e=${{ execution.ids }}'));
    assert.equal(errors.length, 3, errors.join('\n'));
    assert.match(errors[0], /step "report" reads `workflow\.input\.who`: workflow has no field "input"; did you mean `workflow\.inputs`\?/);
    assert.match(errors[1], /reads `flow\.x`: "flow" is not a template root; did you mean `workflow`\?/);
    assert.match(errors[2], /reads `execution\.ids`: execution has no field "ids"; did you mean `execution\.id`\?/);
  });

  it('refuses `output` for `outputs`', () => {
    assert.deepEqual(errorsOf(reading('o=${{ steps.hello.output.text }}')), [
      '/steps/3/config/message step "report" reads `steps.hello.output.text`: a step has no "output"; did you mean `steps.hello.outputs`? (fields: outputs, items, status, error)',
    ]);
  });

  it("refuses a field the step's plugin does not return, naming the one it does (status → statusCode)", () => {
    assert.deepEqual(errorsOf(reading('(HTTP ${{ steps.call.outputs.status }})')), [
      '/steps/3/config/message step "report" reads `steps.call.outputs.status`: step "call" (http-request) returns no "status"; ' +
        'did you mean `steps.call.outputs.statusCode`? (steps.call.outputs has statusCode, statusText, headers, body)',
    ]);
    // The same in a raw expression (a decider), and in the workflow outputs.
    const doc = reading('ok', { outputs: { level: '${{ steps.hello.outputs.levle }}' } });
    (doc.steps as Array<Record<string, unknown>>).push(
      step('gate', 'conditional', { expression: 'steps.call.outputs.code == 200' }, { dependsOn: ['call'] }),
    );
    const errors = errorsOf(doc);
    assert.equal(errors.length, 2, errors.join('\n'));
    assert.match(
      errors[0],
      /^\/outputs\/level the workflow outputs reads .*returns no "levle"; did you mean `steps\.hello\.outputs\.level`\?/,
    );
    assert.match(errors[1], /^\/steps\/5\/config\/expression step "gate" reads `steps\.call\.outputs\.code == 200`: .*returns no "code"/);
  });

  it('refuses a step read before it has run: downstream of the reader, the reader itself, or in a variable seed', () => {
    assert.deepEqual(errorsOf(reading('later=${{ steps.after.outputs.message }}')), [
      '/steps/3/config/message step "report" reads `steps.after.outputs.message`: step "after" runs after "report" (it is downstream), so it has not run yet; connect it upstream or read another step',
    ]);
    assert.match(errorsOf(reading('self=${{ steps.report.outputs.message }}'))[0], /step "report" has no outputs while it runs/);
    const seeded = errorsOf(reading('ok', { variables: { first: { initialValue: '${{ steps.hello.outputs.message }}' } } }));
    assert.match(
      seeded[0],
      /^\/variables\/first\/initialValue a variable initialValue reads .*seeded when the run starts, before any step has run/,
    );
  });

  it('warns, without refusing, when a step is upstream on only some paths (an optional branch) or in a parallel branch', () => {
    //   start ─▶ gate ─true─▶ fetch ─▶ merge(any) ◀─false─ gate        start ─▶ side (parallel to gate)
    const doc = {
      name: 'branches',
      steps: [
        trigger(),
        step('gate', 'conditional', { expression: 'workflow.inputs.go' }, { dependsOn: ['start'] }),
        step('fetch', 'http-request', { url: 'https://x.test' }),
        step('side', 'log', { message: 'side' }, { dependsOn: ['start'] }),
        step(
          'merge',
          'log',
          { message: 'got ${{ steps.fetch.outputs.body }} and ${{ steps.side.outputs.message }}' },
          { joinStrategy: 'any' },
        ),
        step(
          'guarded',
          'log',
          { message: "${{ steps.fetch.status == 'completed' ? steps.fetch.outputs.body : 'none' }}" },
          { dependsOn: ['merge'] },
        ),
      ],
      connections: connections('gate:true->fetch', 'fetch->merge', 'gate:false->merge'),
    };
    const result = validateDefinition(doc);
    assert.deepEqual(result.errors, []);
    assert.deepEqual(
      result.warnings.map((w) => [w.code, w.path, w.message.replace(/:.*$/, '')]),
      [
        [REFERENCE_MAY_NOT_RESOLVE, '/steps/4/config/message', 'step "merge" reads `steps.fetch.outputs.body`'],
        [REFERENCE_MAY_NOT_RESOLVE, '/steps/4/config/message', 'step "merge" reads `steps.side.outputs.message`'],
      ],
    );
    assert.match(result.warnings[0].message, /upstream on only some of the paths to "merge"/);
    assert.match(result.warnings[1].message, /not upstream of "merge" \(a parallel branch\)/);
  });

  it('warns about an input the trigger does not declare, suggesting the declared one', () => {
    assert.deepEqual(warningsOf(reading('${{ workflow.inputs.whoo }}')), [
      `${INPUT_UNDECLARED} /steps/3/config/message step "report" reads \`workflow.inputs.whoo\`: no trigger declares the input "whoo"; did you mean \`workflow.inputs.who\`? (declared: who); a caller may still pass it, else it reads undefined`,
    ]);
    // A webhook's payload is whatever the request carries: nothing to check against.
    const webhook = reading('${{ workflow.inputs.whoo }}');
    (webhook.steps as Array<Record<string, unknown>>).push(trigger('hook', 'webhook', { mode: 'start' }));
    assert.deepEqual(warningsOf(webhook), []);
  });

  it("counts a cron trigger's tick inputs (firedAt, schedule) among the declared ones", () => {
    const doc = reading('${{ workflow.inputs.firedAt }} ${{ workflow.inputs.schedule }} ${{ workflow.inputs.firedat }}');
    (doc.steps as Array<Record<string, unknown>>).push(trigger('tick', 'cron', { schedule: '0 3 * * *' }));
    assert.deepEqual(
      warningsOf(doc).map((w) => w.replace(/ \(declared.*$/, '')),
      [
        `${INPUT_UNDECLARED} /steps/3/config/message step "report" reads \`workflow.inputs.firedat\`: no trigger declares the input "firedat"; did you mean \`workflow.inputs.firedAt\`?`,
      ],
    );
  });

  it('refuses a trigger config reading what does not exist when the trigger is activated', () => {
    const doc = reading('ok');
    (doc.steps as Array<Record<string, unknown>>)[0] = trigger('start', 'webhook', { path: '${{ workflow.inputs.who }}', mode: 'start' });
    assert.match(errorsOf(doc)[0], /^\/steps\/0\/config\/path step "start" reads .*only vars\.\* and secrets\.\* exist/);
  });

  it('knows the outputs of forEach and loop steps, of deciders and waits, and leaves open-ended outputs and unknown shapes unchecked', () => {
    const doc = {
      name: 'shapes',
      steps: chain(
        trigger(),
        step('each', 'http-request', { url: 'https://x.test/${{ variables.item }}' }, { forEach: { expression: 'variables.list' } }),
        step('code', 'code-exec', { code: 'return { anything: 1 }' }),
        step('wait', 'signal-wait', { signalName: 'go' }, { type: 'wait' }),
        step('vendor', 'acme-thing', {}),
        step('use', 'log', {
          message:
            '${{ steps.each.outputs.count }} ${{ steps.code.outputs.anything }} ${{ steps.wait.outputs.approved }} ${{ steps.vendor.outputs.whatever }}',
        }),
      ),
    };
    const vendor: PluginDescriptor = {
      name: 'acme-thing',
      kind: 'module',
      description: 'a vendor plugin without declared outputs',
      executeMode: 'each',
      inline: false,
      inputPorts: ['default'],
      outputPorts: ['default'],
      configSchema: { properties: {} },
    };
    assert.deepEqual(validateDefinition(doc, { plugins: { 'acme-thing': vendor } }).errors, []);
    const wrong = structuredClone(doc);
    (wrong.steps[5].config as { message: string }).message = '${{ steps.each.outputs.statusCode }}';
    assert.match(
      validateDefinition(wrong, { plugins: { 'acme-thing': vendor } }).errors[0].message,
      /step "each" \(a forEach\) returns no "statusCode" \(steps\.each\.outputs has items, count, failed\)/,
    );
  });

  it('keeps the roots the compatible engine documents: variables, workflow.variables, execution, trigger, signal, $items', () => {
    const result = validateDefinition(
      reading(
        '${{ variables.x }} ${{ workflow.variables.x }} ${{ workflow.id }} ${{ execution.correlationKey }} ${{ trigger.receivedAt }} ' +
          '${{ signal.payload }} ${{ $items.length }} ${{ $itemsLength }} ${{ inputs.x }} ${{ secrets.TOKEN }} ${{ undefined }}',
      ),
    );
    assert.deepEqual(result.errors, []);
  });
});

describe('engine: references on cycles', () => {
  //   start ─▶ split ─loop▶ body ─▶ split (back-edge)     split ─done▶ after
  const looping = (bodyMessage: string, afterMessage = 'done') => ({
    name: 'cycle',
    steps: [
      trigger(),
      step('split', 'split-in-batches', { batchSize: 1, arrayPath: 'list' }, { dependsOn: ['start'], joinStrategy: 'any' }),
      step('body', 'log', { message: bodyMessage }),
      step('after', 'log', { message: afterMessage }),
    ],
    connections: connections('split:loop->body', 'body->split', 'split:done->after'),
  });

  it('lets a step on a cycle read the step before it; a step after the loop reading the body is warned about (an empty list skips it)', () => {
    const result = validateDefinition(
      looping(
        'batch ${{ steps.split.outputs.batchIndex }} of ${{ steps.split.outputs.totalBatches }}',
        '${{ steps.body.outputs.message }}',
      ),
    );
    assert.deepEqual(result.errors, []);
    assert.deepEqual(
      result.warnings.map((w) => [w.code, w.path]),
      // The loop keeps no accumulator, and the step after it reads the body: only the last round remains (validate-loops.ts).
      [
        [REFERENCE_MAY_NOT_RESOLVE, '/steps/3/config/message'],
        ['LOOP_WITHOUT_ACCUMULATOR', '/connections/1'],
      ],
    );
    assert.match(result.warnings[0].message, /step "body" is upstream on only some of the paths to "after"/);
  });

  it('still refuses a field the looping step does not return', () => {
    assert.match(
      errorsOf(looping('${{ steps.split.outputs.batch }}'))[0],
      /returns no "batch"; did you mean `steps\.split\.outputs\.batchIndex`\?/,
    );
  });
});
