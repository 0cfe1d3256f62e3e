/**
 * Publish checks references (issue 38): a typo the run would read as an empty string is a 400 naming the step,
 * the reference and the fix, and nothing is written; a reference that may not resolve publishes, with a warning.
 *
 *   trigger ─▶ deploy(http-request) ─▶ report(log)
 */
import assert from 'node:assert/strict';
import { assertDialect } from '../support/dialects';
import { snapshot, wfContext, type WfEnv, type WfOrg } from './support';

function deployment(message: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'Deploy',
    steps: {
      trigger: { type: 'trigger', pluginType: 'manual', config: { inputs: { who: { type: 'string' } } } },
      deploy: { type: 'module', pluginType: 'http-request', config: { url: 'https://deploy.example.test' }, dependsOn: ['trigger'] },
      report: { type: 'module', pluginType: 'log', config: { message }, dependsOn: ['deploy'] },
    },
    ...extra,
  };
}

describe('workflows API: references are checked at publish', () => {
  let env: WfEnv;
  let org: WfOrg;
  beforeEach(async () => {
    ({ env, org } = await wfContext());
  });

  it('answers 400 for a field the plugin does not return, with the fix, and writes nothing', async () => {
    const before = await snapshot(env.db, org.id);
    const res = await org
      .auth(env.t.request.post('/workflows/definitions'))
      .send(deployment('deployed (HTTP ${{ steps.deploy.outputs.status }})'));
    assertDialect('problem', res, 400);
    assert.match(res.body.type, /\/graph-invalid$/);
    assert.deepEqual(res.body.errors, [
      {
        path: '/steps/report/config/message',
        message:
          'step "report" reads `steps.deploy.outputs.status`: step "deploy" (http-request) returns no "status"; did you mean ' +
          '`steps.deploy.outputs.statusCode`? (steps.deploy.outputs has statusCode, statusText, headers, body)',
      },
    ]);
    assert.deepEqual(await snapshot(env.db, org.id), before);
  });

  it('answers 400 for workflow.input, an unknown step and `output`, each at its path', async () => {
    const res = await org
      .auth(env.t.request.post('/workflows/definitions'))
      .send(deployment('x=${{ steps.nosuch.outputs.x }} w=${{ workflow.input.who }} o=${{ steps.deploy.output.body }}'));
    assertDialect('problem', res, 400);
    const messages = res.body.errors.map((e: { message: string }) => e.message).join('\n');
    assert.match(messages, /there is no step "nosuch"/);
    assert.match(messages, /did you mean `workflow\.inputs`\?/);
    assert.match(messages, /did you mean `steps\.deploy\.outputs`\?/);
  });

  it('publishes a reference that may not resolve, and says so in the warnings', async () => {
    const res = await org.auth(env.t.request.post('/workflows/definitions')).send(deployment('for ${{ workflow.inputs.whom }}'));
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.deepEqual(
      res.body.warnings.map((w: { code: string; path: string }) => [w.code, w.path]),
      [['INPUT_UNDECLARED', '/steps/report/config/message']],
    );
    assert.match(res.body.warnings[0].message, /did you mean `workflow\.inputs\.who`\?/);
  });
});
