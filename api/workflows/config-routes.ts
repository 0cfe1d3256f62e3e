/**
 * Secrets and variables under /workflows/config ({error, message} dialect).
 * Bodies are checked here rather than by the schema so each rule answers
 * with its contract code (invalid_name, invalid_place, invalid_nrn, invalid_value, …).
 * Secret values are encrypted before they reach the store and never read back.
 *
 * Guards: a folder entry by its own NRN (`nrn`, default the organization's), a
 * workflow-scoped entry by its workflow's NRN. Listing a folder needs config:read
 * somewhere in the organization and shows the entries whose NRN the caller may
 * read (a filter, not a 403: a folder holds entries of several NRNs).
 */
import { Type } from '@sinclair/typebox';
import { ConfigEntryRepository, folderChain, type ConfigEntryView } from '../../db/repositories/config-entry-repository';
import { WorkflowRepository } from '../../db/repositories/workflow-repository';
import { normalizeFolderPath } from '../../workflows/engine';
import { authorize, loadAccess, type Access } from '../access/access';
import { nrnInOrganization, organizationNrn } from '../access/nrn';
import { workflowReaches } from '../access/workflow-reach';
import type { AuthContext } from '../http/auth';
import { HttpError } from '../http/errors';
import type { Permission } from '../http/permissions';
import { workflowNrn } from './authorize';
import { defineRoute, type RouteDefinition } from '../http/route';
import { encryptSecret } from '../../db/config-crypto';
import type { WorkflowDeps } from './deps';
import { newConfigEntryId } from './ids';
import { iso } from '../http/iso-date';

const tags = ['Secrets and variables'];
const NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
const MAX_VALUE_BYTES = 64 * 1024;
const fail = (status: number, code: string, message: string) => new HttpError(status, code, message);
const entryNotFound = (id: string) => () => fail(404, 'not_found', `No config entry "${id}".`);
/** Without any grant in the organization, its places answer like a missing one. */
const placeNotFound = () => fail(404, 'not_found', 'No such place exists in your organization.');
const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
/**
 * The bodies are described, not enforced, by their schemas: the handler checks each field itself so
 * that each problem answers with its own code (invalid_name, invalid_value, invalid_place, invalid_nrn).
 */
const described = (description: string) => Type.Optional(Type.Unknown({ description }));
const ConfigEntryWrite = Type.Object(
  {
    name: described('string matching ^[A-Za-z_][A-Za-z0-9_]{0,127}$ (else 400 invalid_name)'),
    value: described('string of at most 64 KiB (else 400 invalid_value); a secret is stored encrypted and never returned'),
    secret: described('boolean, default false; fixed once the entry exists (409 secret_flag_immutable)'),
    path: described('absolute folder path such as /team/payments; give exactly one of path and workflow (else 400 invalid_place)'),
    workflow: described('workflow id (wf_…) or key in your organization; give exactly one of path and workflow'),
    nrn: described('folder entries only: the NRN that guards the entry (default the organization), e.g. organization=1:account=7'),
  },
  { additionalProperties: true, description: 'name and value are required; exactly one of path and workflow' },
);
const ConfigEntryRotate = Type.Object(
  {
    value: described('the new value: string of at most 64 KiB (else 400 invalid_value)'),
    name: described('optional; must equal the entry name (it is immutable: 400 invalid_name)'),
    secret: described('optional; must equal the entry secret flag (409 secret_flag_immutable)'),
    nrn: described('optional; must equal the entry nrn (409 nrn_immutable)'),
  },
  { additionalProperties: true, description: 'value is required; the other fields may only repeat what the entry has' },
);
const Entry = Type.Object({
  id: Type.String(),
  name: Type.String(),
  secret: Type.Boolean(),
  path: Type.Optional(Type.String()),
  workflow: Type.Optional(Type.String()),
  nrn: Type.Optional(Type.String({ description: "A folder entry's NRN: it guards the entry and bounds which workflows use it." })),
  value: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  effective: Type.Optional(Type.Boolean()),
  mode: Type.Optional(Type.Union([Type.Literal('created'), Type.Literal('updated')])),
  createdBy: Type.Optional(Type.String()),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});

function entryJson(row: ConfigEntryView, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: row.id,
    name: row.name,
    secret: row.secret,
    ...(row.path !== null ? { path: row.path, nrn: row.nrn ?? organizationNrn(row.organizationId) } : { workflow: row.workflowId }),
    value: row.secret ? null : row.value,
    ...(row.createdBy !== null ? { createdBy: row.createdBy } : {}),
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
    ...extra,
  };
}

/** What the audit trail holds of an entry: its name, place and secret flag. Never its value (of either kind). */
function auditDetails(row: ConfigEntryView, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { name: row.name, secret: row.secret, ...(row.path !== null ? { path: row.path } : { workflow: row.workflowId }), ...extra };
}

function checkValue(value: unknown): string {
  if (typeof value !== 'string') throw fail(400, 'invalid_value', 'value must be a string.');
  if (Buffer.byteLength(value) > MAX_VALUE_BYTES) throw fail(400, 'invalid_value', `value may be at most ${MAX_VALUE_BYTES} bytes.`);
  return value;
}

export function configRoutes(deps: WorkflowDeps): RouteDefinition[] {
  const entries = new ConfigEntryRepository(deps.dataSource.manager);
  /**
   * Exactly one of path and workflow; a workflow is named by id or key and must be in the caller's
   * organization. `nrn` (folder entries only) is the one the body names, if any: `nrn` of a workflow
   * place is its workflow's, which guards its entries.
   */
  async function place(
    organizationId: string,
    input: { path?: unknown; workflow?: unknown; nrn?: unknown },
  ): Promise<{ path: string | null; workflowId: string | null; workflowPath?: string; workflowNrn?: string; nrn?: string }> {
    const hasPath = input.path !== undefined && input.path !== null;
    const hasWorkflow = input.workflow !== undefined && input.workflow !== null;
    if (hasPath === hasWorkflow) throw fail(400, 'invalid_place', 'Give exactly one of path and workflow.');
    if (hasPath) {
      const path = typeof input.path === 'string' ? normalizeFolderPath(input.path) : undefined;
      if (path === undefined) throw fail(400, 'invalid_place', 'path must be an absolute folder path such as /team/payments.');
      if (input.nrn === undefined) return { path, workflowId: null };
      if (typeof input.nrn !== 'string') throw fail(400, 'invalid_nrn', 'nrn must be a string such as organization=1:account=7.');
      const inside = nrnInOrganization(input.nrn, organizationId);
      if ('problem' in inside) throw fail(400, 'invalid_nrn', `nrn "${input.nrn}" ${inside.problem}.`);
      return { path, workflowId: null, nrn: inside.nrn };
    }
    if (input.nrn !== undefined)
      throw fail(400, 'invalid_nrn', "nrn applies to folder entries only: a workflow's entries are guarded by the workflow's NRN.");
    if (typeof input.workflow !== 'string' || input.workflow === '')
      throw fail(400, 'invalid_place', 'workflow must be a workflow id or key.');
    const workflow = await new WorkflowRepository(deps.dataSource.manager).findByRef(organizationId, input.workflow);
    if (!workflow) throw fail(404, 'not_found', `No workflow "${input.workflow}" exists in your organization.`);
    return { path: null, workflowId: workflow.id, workflowPath: workflow.path, workflowNrn: workflowNrn(workflow) };
  }

  /** Where an entry is guarded: a workflow-scoped entry by its workflow's NRN, a folder entry by its own. */
  async function entryNrn(organizationId: string, entry: ConfigEntryView): Promise<string> {
    if (entry.workflowId === null) return entry.nrn ?? organizationNrn(organizationId);
    const workflow = await new WorkflowRepository(deps.dataSource.manager).findOneBy({ organizationId, id: entry.workflowId });
    return workflow ? workflowNrn(workflow) : organizationNrn(organizationId);
  }

  /** The entry `id`, once the caller holds `permission` at its place. */
  async function authorizedEntry(auth: AuthContext, id: string, permission: Permission): Promise<ConfigEntryView> {
    const row = await entries.findEntry(auth.organizationId, id);
    if (!row) throw entryNotFound(id)();
    await authorize(deps.dataSource, auth, permission, await entryNrn(auth.organizationId, row), entryNotFound(id));
    return row;
  }

  return [
    defineRoute({
      method: 'post',
      path: '/workflows/config',
      operationId: 'upsertConfigEntry',
      summary: 'Create or rotate a secret or variable by name and place',
      description:
        'Body: {name, value, secret?, path | workflow, nrn?}. `nrn` (folder entries only, default the organization) guards the entry and bounds which workflows use it. 201 mode created, or 200 mode updated with the same id.',
      tags,
      access: { permission: 'config:write' },
      audit: { action: 'config.entry.put' },
      body: ConfigEntryWrite,
      responses: { 200: { description: 'Updated', schema: Entry }, 201: { description: 'Created', schema: Entry } },
      errors: [404, 409],
      async handler({ body, auth, permission, audit }) {
        const input = body as Record<string, unknown>;
        if (typeof input.name !== 'string' || !NAME.test(input.name))
          throw fail(400, 'invalid_name', 'name must match ^[A-Za-z_][A-Za-z0-9_]{0,127}$.');
        if (input.secret !== undefined && typeof input.secret !== 'boolean') throw fail(400, 'invalid_value', 'secret must be a boolean.');
        const value = checkValue(input.value);
        const where = await place(auth.organizationId, input);
        // A folder entry keeps the NRN it was created with (default: the organization's); writing it needs config:write there.
        const existing = where.path === null ? undefined : await entries.findAtPlace(auth.organizationId, input.name, where);
        const nrn = where.path === null ? null : (existing?.nrn ?? where.nrn ?? organizationNrn(auth.organizationId));
        await authorize(deps.dataSource, auth, permission, where.workflowNrn ?? nrn!, placeNotFound);
        const name = input.name;
        const nrnDiffers = () =>
          fail(409, 'nrn_immutable', `"${name}" exists at ${where.path} with nrn ${nrn}; the nrn of an entry cannot change.`);
        if (where.nrn !== undefined && nrn !== where.nrn) throw nrnDiffers();
        const secret = input.secret === true;
        const result = await deps.dataSource.transaction(async (m) => {
          const written = await new ConfigEntryRepository(m).upsertEntry({
            id: newConfigEntryId(),
            organizationId: auth.organizationId,
            name,
            secret,
            path: where.path,
            workflowId: where.workflowId,
            value: secret ? null : value,
            encryptedValue: secret ? encryptSecret(deps.encryptionKey, value, auth.organizationId) : null,
            createdBy: auth.userId,
            nrn,
          });
          if (typeof written !== 'string') {
            const mode = written.created ? 'created' : 'updated';
            await audit.record(m, { nrn: where.workflowNrn ?? nrn, id: written.row.id, details: auditDetails(written.row, { mode }) });
          }
          return written;
        });
        if (result === 'nrn-differs') throw nrnDiffers();
        if (result === 'secret-flag-differs')
          throw fail(409, 'secret_flag_immutable', `"${input.name}" exists with secret=${!secret}; the secret flag cannot change.`);
        return { status: result.created ? 201 : 200, body: entryJson(result.row, { mode: result.created ? 'created' : 'updated' }) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/workflows/config',
      operationId: 'listConfigEntries',
      summary: 'List entries at a place (ancestors=true: the whole visible chain; descendants=true: the folder and every folder beneath)',
      tags,
      access: { permission: 'config:read' },
      query: Type.Object({
        path: Type.Optional(Type.String()),
        workflow: Type.Optional(Type.String()),
        ancestors: Type.Optional(Type.Boolean()),
        descendants: Type.Optional(
          Type.Boolean({
            description: 'With path: the entries of the folder and of every folder beneath it, by folder (each with its path).',
          }),
        ),
      }),
      responses: { 200: { description: 'Entries', schema: Type.Object({ data: Type.Array(Entry) }) } },
      async handler({ query, auth, permission }) {
        const where = await place(auth.organizationId, { path: query.path, workflow: query.workflow });
        let access: Access;
        if (where.workflowNrn !== undefined) access = await authorize(deps.dataSource, auth, permission, where.workflowNrn, placeNotFound);
        else {
          access = await loadAccess(deps.dataSource, auth);
          access.requireSomewhere(permission, auth.organizationId, placeNotFound);
        }
        if (query.descendants && (where.path === null || query.ancestors))
          throw fail(400, 'invalid_place', 'descendants applies to a folder path, without ancestors.');
        const paths = query.ancestors ? folderChain(where.path ?? where.workflowPath ?? '/') : where.path ? [where.path] : [];
        const all = query.descendants
          ? await entries.listUnder(auth.organizationId, where.path!)
          : await entries.listAt(auth.organizationId, { workflowId: where.workflowId, paths });
        // Folder entries only where the caller may read them (the workflow's own are guarded by the check above).
        const rows = all.filter(
          (row) => row.workflowId !== null || access.can(permission, row.nrn ?? organizationNrn(auth.organizationId)),
        );
        if (!query.ancestors) return { status: 200, body: { data: rows.map((row) => entryJson(row)) } };
        // Rows come in precedence order; the first per (kind, name) wins, among those a workflow may use:
        // a workflow's listing skips folder entries outside its NRN (api/access/workflow-reach.ts).
        const usable = (row: ConfigEntryView) =>
          where.workflowNrn === undefined || row.workflowId !== null || workflowReaches(where.workflowNrn, row.nrn ?? '');
        const seen = new Set<string>();
        const data = rows.map((row) => {
          const id = `${row.secret}:${row.name}`;
          const effective = !seen.has(id) && usable(row);
          if (effective) seen.add(id);
          return entryJson(row, { effective });
        });
        return { status: 200, body: { data } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/workflows/config/{id}',
      operationId: 'getConfigEntry',
      summary: 'Get one entry (secret values are never returned)',
      tags,
      access: { permission: 'config:read' },
      params: IdParams,
      responses: { 200: { description: 'The entry', schema: Entry } },
      async handler({ params, auth, permission }) {
        return { status: 200, body: entryJson(await authorizedEntry(auth, params.id, permission)) };
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/workflows/config/{id}',
      operationId: 'rotateConfigEntry',
      summary: 'Rotate the value in place',
      tags,
      access: { permission: 'config:write' },
      audit: { action: 'config.entry.rotate' },
      params: IdParams,
      body: ConfigEntryRotate,
      responses: { 200: { description: 'Rotated', schema: Entry } },
      errors: [404, 409],
      async handler({ params, body, auth, permission, audit }) {
        const input = body as Record<string, unknown>;
        const current = await authorizedEntry(auth, params.id, permission);
        if (input.name !== undefined && input.name !== current.name) throw fail(400, 'invalid_name', 'name is immutable.');
        if (input.secret !== undefined && input.secret !== current.secret)
          throw fail(409, 'secret_flag_immutable', 'The secret flag cannot change.');
        if (input.path !== undefined || input.workflow !== undefined)
          throw fail(400, 'invalid_place', 'The place of an entry cannot change.');
        if (input.nrn !== undefined && input.nrn !== current.nrn) throw fail(409, 'nrn_immutable', 'The nrn of an entry cannot change.');
        const value = checkValue(input.value);
        const guard = await entryNrn(auth.organizationId, current);
        const row = await deps.dataSource.transaction(async (m) => {
          const rotated = await new ConfigEntryRepository(m).rotate(auth.organizationId, params.id, {
            value: current.secret ? null : value,
            encryptedValue: current.secret ? encryptSecret(deps.encryptionKey, value, auth.organizationId) : null,
          });
          if (rotated) await audit.record(m, { nrn: guard, id: rotated.id, details: auditDetails(rotated) });
          return rotated;
        });
        if (!row) throw entryNotFound(params.id)();
        return { status: 200, body: entryJson(row, { mode: 'updated' }) };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/workflows/config/{id}',
      operationId: 'deleteConfigEntry',
      summary: 'Delete an entry',
      tags,
      access: { permission: 'config:write' },
      audit: { action: 'config.entry.delete' },
      params: IdParams,
      responses: { 204: { description: 'Deleted' } },
      async handler({ params, auth, permission, audit }) {
        const current = await authorizedEntry(auth, params.id, permission);
        const guard = await entryNrn(auth.organizationId, current);
        await deps.dataSource.transaction(async (m) => {
          if (!(await new ConfigEntryRepository(m).deleteEntry(auth.organizationId, params.id))) throw entryNotFound(params.id)();
          await audit.record(m, { nrn: guard, id: current.id, details: auditDetails(current) });
        });
        return { status: 204 };
      },
    }),
  ];
}
