/**
 * Issue 38: a revision keeps the text it was published from (YAML or JSON,
 * comments, key order and layout), served byte for byte by
 * GET …/revisions/{n}/source with its content type, beside the normalized
 * definition that runs. Revisions from before have none (404, readers render
 * the definition).
 */
import assert from 'node:assert/strict';
import { assertDialect } from '../support/dialects';
import { definition } from '../support/definitions';
import { wfContext, type WfEnv, type WfOrg } from './support';

/** Comments, `dependsOn` (the server stores connections), steps out of order, a secret reference. */
const YAML_SOURCE = [
  '# Nightly report: owned by the data team.',
  'name: Nightly report',
  'steps:',
  '  # The log runs after the trigger.',
  '  report:',
  '    type: module',
  '    pluginType: log',
  '    config:',
  '      message: "token ${{ secrets.REPORT_TOKEN }}"   # a reference, never a value',
  '    dependsOn: [start]',
  '  start: {type: trigger, pluginType: manual}',
  '',
].join('\n');

describe('workflows API: the source of a revision', () => {
  let env: WfEnv;
  let org: WfOrg;
  beforeEach(async () => {
    ({ env, org } = await wfContext());
  });

  const source = (ref: string, n: number) =>
    org.auth(env.t.request.get(`/workflows/definitions/${ref}/revisions/${n}/source`)).buffer(true);

  it('a YAML body with comments publishes and its source reads back byte for byte, as application/yaml', async () => {
    const res = await org
      .auth(env.t.request.put('/workflows/definitions/nightly'))
      .set('Content-Type', 'application/yaml')
      .send(YAML_SOURCE);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.revision.sourceFormat, 'yaml');
    // The definition that runs is still the normalized one.
    assert.ok(Array.isArray(res.body.definition?.connections ?? res.body.revision.definition?.connections));

    const read = await source('nightly', 1);
    assert.equal(read.status, 200);
    assert.match(read.headers['content-type'], /^application\/yaml/);
    assert.equal(read.text, YAML_SOURCE);

    const revision = await org.auth(env.t.request.get('/workflows/definitions/nightly/revisions/1'));
    assert.equal(revision.body.sourceFormat, 'yaml');
    assert.equal(revision.body.source, undefined, 'the text is read on its own route');
    const list = await org.auth(env.t.request.get('/workflows/definitions/nightly/revisions?includeDefinition=true'));
    assert.equal(list.body.data[0].sourceFormat, 'yaml');
  });

  it('a JSON body reads back as sent (its spacing and key order), as application/json; POST keeps it too', async () => {
    const text = `{\n    "steps": {"work": {"pluginType": "log", "type": "module", "config": {"message": "hi"}},\n  "trigger": {"type": "trigger", "pluginType": "manual"}},\n  "name": "Json",\n  "connections": [{"to": "work", "from": "trigger"}]\n}\n`;
    const created = await org.auth(env.t.request.post('/workflows/definitions')).set('Content-Type', 'application/json').send(text);
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const id = created.body.workflow.id as string;
    assert.equal(created.body.revision.sourceFormat, 'json');
    const read = await source(id, 1);
    assert.equal(read.status, 200);
    assert.match(read.headers['content-type'], /^application\/json/);
    assert.equal(read.text, text);
  });

  it('a new revision keeps its own text; a publish that only reformats or comments replaces the newest revision source', async () => {
    const put = (text: string) =>
      org.auth(env.t.request.put('/workflows/definitions/nightly')).set('Content-Type', 'application/yaml').send(text);
    await put(YAML_SOURCE).expect(201);
    const changed = YAML_SOURCE.replace('pluginType: log', 'pluginType: log\n    description: Sends the report');
    const second = await put(changed).expect(200);
    assert.equal(second.body.mode, 'new-revision');
    assert.equal((await source('nightly', 2)).text, changed);
    assert.equal((await source('nightly', 1)).text, YAML_SOURCE, 'an older revision keeps its text');

    const commented = `# Reviewed.\n${changed}`;
    const third = await put(commented).expect(200);
    assert.equal(third.body.mode, 'overwritten');
    assert.equal(third.body.revision.revision, 2);
    assert.equal((await source('nightly', 2)).text, commented);
  });

  it('a revision published before sources were kept answers 404 revision-source-not-kept; its definition is still read', async () => {
    await org.auth(env.t.request.put('/workflows/definitions/old')).send(definition('Old')).expect(201);
    // As the migration leaves a revision written before it.
    await env.db.query(
      `UPDATE workflow_revisions SET source = NULL, source_format = NULL WHERE workflow_id = (SELECT id FROM workflows WHERE organization_id = $1 AND key = 'old')`,
      [org.id],
    );
    const read = await source('old', 1);
    assertDialect('problem', read, 404);
    assert.match(read.body.type, /\/revision-source-not-kept$/);
    const revision = await org.auth(env.t.request.get('/workflows/definitions/old/revisions/1')).expect(200);
    assert.equal(revision.body.sourceFormat, undefined);
    assert.equal(revision.body.definition.name, 'Old');
    // A missing revision is still a missing revision.
    assert.match((await source('old', 9)).body.type, /\/revision-not-found$/);
  });

  it('reading a source needs workflow:read on the workflow, as reading the revision does', async () => {
    await org
      .auth(env.t.request.put('/workflows/definitions/nightly'))
      .set('Content-Type', 'application/yaml')
      .send(YAML_SOURCE)
      .expect(201);
    const stranger = await env.t.request
      .get('/workflows/definitions/nightly/revisions/1/source')
      .set('Authorization', `Bearer ${org.other.token}`);
    assertDialect('problem', stranger, 404);
    assert.equal((await env.t.request.get('/workflows/definitions/nightly/revisions/1/source')).status, 401);
  });

  it('refuses a revision number that is not one, and release notes past their limit, writing nothing', async () => {
    await org
      .auth(env.t.request.put('/workflows/definitions/nightly'))
      .set('Content-Type', 'application/yaml')
      .send(YAML_SOURCE)
      .expect(201);
    for (const n of ['abc', '0', '-1', '1.5']) {
      const read = await org.auth(env.t.request.get(`/workflows/definitions/nightly/revisions/${n}/source`));
      assertDialect('problem', read, 400);
    }
    const long = await org
      .auth(env.t.request.put(`/workflows/definitions/nightly?releaseNotes=${'n'.repeat(2001)}`))
      .set('Content-Type', 'application/yaml')
      .send(YAML_SOURCE.replace('Nightly report', 'Renamed'));
    assertDialect('problem', long, 400);
    const fresh = await org
      .auth(env.t.request.post(`/workflows/definitions?releaseNotes=${'n'.repeat(2001)}`))
      .set('Content-Type', 'application/yaml')
      .send(YAML_SOURCE.replace('Nightly report', 'Other'));
    assertDialect('problem', fresh, 400);
    const workflows = await org.auth(env.t.request.get('/workflows/definitions')).expect(200);
    assert.deepEqual(
      workflows.body.data.map((w: { name: string }) => w.name),
      ['Nightly report'],
    );
    const revisions = await org.auth(env.t.request.get('/workflows/definitions/nightly/revisions')).expect(200);
    assert.equal(revisions.body.data.length, 1);
  });
});
