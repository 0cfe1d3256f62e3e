/**
 * `platform-workflow publish` sends a file as written (the server keeps its
 * text as the revision's source) and `platform-workflow diff` compares that
 * text with the file in git: "same" and exit 0, or a unified diff and exit 1.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runScript, type ScriptResult } from '../support/process';
import { wfContext, type WfEnv, type WfOrg } from '../workflows-api/support';

const CLI = 'kit/cli/main.ts';

const FLOW = `# Owned by the payments team; reviewed in git.
name: Refunds
path: /kit-diff
steps:
  start: {type: trigger, pluginType: manual}
  note:
    type: module
    pluginType: log
    dependsOn: [start]   # runs after the trigger
    config: {message: "refund \${{ secrets.REFUND_TOKEN }}"}
`;

describe('platform-workflow diff: the published text against the file', function () {
  this.timeout(120_000);
  let env: WfEnv;
  let org: WfOrg;
  let server: Server;
  let url: string;
  const dir = mkdtempSync(path.join(tmpdir(), 'kit-diff-'));
  const file = path.join(dir, 'kit-refunds.yaml');
  const cli = (args: string[]): Promise<ScriptResult> =>
    runScript(CLI, { args, env: { NO_COLOR: '1', PLATFORM_API_URL: url, PLATFORM_API_TOKEN: org.token }, timeoutMs: 60_000 });

  before(async () => {
    ({ env, org } = await wfContext());
    server = createServer(env.t.app.koa.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise((resolve) => server.close(resolve)));

  it('publish keeps the file as written; diff says "same" (exit 0), then a unified diff after an edit (exit 1)', async () => {
    writeFileSync(file, FLOW);
    const published = await cli(['publish', file]);
    assert.equal(published.code, 0, published.stderr);
    // The key is the file's name; the server keeps the text, comments and all.
    const source = await org.auth(env.t.request.get('/workflows/definitions/kit-refunds/revisions/1/source')).buffer(true);
    assert.equal(source.text, FLOW);

    const same = await cli(['diff', file]);
    assert.equal(same.code, 0, same.stderr + same.stdout);
    assert.match(same.stdout, /^same: .*kit-refunds\.yaml is the text of kit-refunds revision 1 \(alias latest\)/);

    writeFileSync(file, FLOW.replace('runs after the trigger', 'runs after the trigger, once'));
    const differs = await cli(['diff', file]);
    assert.equal(differs.code, 1, differs.stderr);
    assert.equal(
      differs.stdout,
      [
        '--- kit-refunds revision 1 (alias latest)',
        `+++ ${file}`,
        '@@ -6,5 +6,5 @@',
        '   note:',
        '     type: module',
        '     pluginType: log',
        '-    dependsOn: [start]   # runs after the trigger',
        '+    dependsOn: [start]   # runs after the trigger, once',
        '     config: {message: "refund ${{ secrets.REFUND_TOKEN }}"}',
        '',
      ].join('\n'),
    );

    // Published again (a comment only: the newest revision's text is replaced), the file is the same again.
    assert.equal((await cli(['publish', file])).code, 0);
    assert.equal((await cli(['diff', file])).code, 0);
    // Revision 1 by number, and by an alias pointing at it.
    await org.auth(env.t.request.put('/workflows/definitions/kit-refunds/aliases/prod')).send({ revision: 1 }).expect(201);
    writeFileSync(file, FLOW.replace('config: {message: "refund', 'config: {message: "full refund'));
    assert.equal((await cli(['publish', file])).code, 0);
    const byNumber = await cli(['diff', file, '--revision', '2']);
    assert.equal(byNumber.code, 0, byNumber.stdout);
    const byAlias = await cli(['diff', file, '--alias', 'prod']);
    assert.equal(byAlias.code, 1);
    assert.match(byAlias.stdout, /^\+ {4}config: \{message: "full refund/m);
  });

  it('a revision published before sources were kept: said, exit 1; usage errors exit 2', async () => {
    const old = path.join(dir, 'kit-old.yaml');
    writeFileSync(old, FLOW);
    assert.equal((await cli(['publish', old])).code, 0);
    await env.db.query(
      `UPDATE workflow_revisions SET source = NULL, source_format = NULL WHERE workflow_id = (SELECT id FROM workflows WHERE organization_id = $1 AND key = 'kit-old')`,
      [org.id],
    );
    const result = await cli(['diff', old]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /kit-old revision 1 was published before sources were kept: no text to compare/);
    assert.equal((await cli(['diff'])).code, 2);
    assert.equal((await cli(['diff', old, '--alias', 'a', '--revision', '1'])).code, 2);
  });
});
