import assert from 'node:assert/strict';
import fc from 'fast-check';
import { PLUGINS } from '../../workflows/engine';
import { snapshot, wfContext, type WfEnv, type WfOrg } from './support';

const stepId = fc.oneof(fc.constantFrom('a', 'b', 'trigger'), fc.string({ maxLength: 5 }));
const graph = fc.record(
  {
    name: fc.oneof(fc.string(), fc.jsonValue()),
    key: fc.oneof(fc.constantFrom('ok-key', 'Bad Key'), fc.string({ maxLength: 8 })),
    steps: fc.oneof(
      fc.dictionary(
        stepId,
        fc.record(
          {
            type: fc.constantFrom('module', 'trigger', 'decider', 'nope'),
            pluginType: fc.oneof(fc.constantFrom(...Object.keys(PLUGINS)), fc.string()),
            config: fc.jsonValue(),
          },
          { requiredKeys: [] },
        ),
      ),
      fc.jsonValue(),
    ),
    connections: fc.oneof(
      fc.array(fc.record({ from: stepId, to: stepId, sourcePort: fc.jsonValue(), condition: fc.string() }, { requiredKeys: [] })),
      fc.jsonValue(),
    ),
  },
  { requiredKeys: [] },
);

describe('workflows API: definition fuzz', function () {
  this.timeout(60_000);
  let env: WfEnv;
  let org: WfOrg;
  before(async () => {
    ({ env, org } = await wfContext());
  });

  it('never answers 5xx; every 4xx names its offending paths; rejected bodies write nothing', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(graph, fc.jsonValue()), async (input) => {
        const before = await snapshot(env.db, org.id);
        const text = JSON.stringify(input) ?? 'null';
        const validate = await org
          .auth(env.t.request.post('/workflows/definitions/validate'))
          .set('Content-Type', 'application/json')
          .send(text);
        assert.ok(validate.status < 500, validate.text);
        const res = await org.auth(env.t.request.post('/workflows/definitions')).set('Content-Type', 'application/json').send(text);
        assert.ok(res.status < 500, res.text);
        if (res.status === 201) return;
        assert.equal(res.status, res.body.status);
        assert.match(res.headers['content-type'], /^application\/problem\+json/);
        if (res.status === 400 && res.body.errors) {
          assert.ok(res.body.errors.length > 0);
          for (const error of res.body.errors) assert.ok(error.path === '' || error.path.startsWith('/'), error.path);
          if (validate.status === 200 && validate.body.valid === false) assert.deepEqual(validate.body.errors, res.body.errors);
        }
        assert.deepEqual(await snapshot(env.db, org.id), before);
      }),
      { numRuns: 150 },
    );
  });
});
