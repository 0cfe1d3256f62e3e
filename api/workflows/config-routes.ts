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
import { encryptSecret } from '../../db/config-crypto';
import { authorize, loadAccess, type Access } from '../access/access';
import { organizationNrn } from '../access/nrn';
import { workflowReaches } from '../access/workflow-reach';
import { defineRoute, type RouteDefinition } from '../http/route';
import {
  configEntryNotFound,
  invalidName,
  invalidPlace,
  invalidValue,
  nrnImmutable,
  placeNotFound,
  secretFlagImmutable,
} from './config-errors';
import { configPlace } from './config-place';
import { ConfigEntryRotate, ConfigEntryWrite, Entry, IdParams, NAME, auditDetails, checkValue, entryJson } from './config-shapes';
import type { WorkflowDeps } from './deps';
import { newConfigEntryId } from './ids';

const tags = ['Secrets and variables'];

export function configRoutes(deps: WorkflowDeps): RouteDefinition[] {
  const entries = new ConfigEntryRepository(deps.dataSource.manager);
  const place = (organizationId: string, input: { path?: unknown; workflow?: unknown; nrn?: unknown }) =>
    configPlace(deps.dataSource, organizationId, input);
  return [
    defineRoute({
      method: 'post',
      path: '/workflows/config',
      operationId: 'upsertConfigEntry',
      summary: 'Create or rotate a secret or variable by name and place',
      description:
        'Body: {name, value, secret?, path | workflow, nrn?}. `nrn` (folder entries only, default the organization) guards the entry and bounds which workflows use it. 201 mode created, or 200 mode updated with the same id.',
      tags,
      access: { permission: 'config:write', inHandler: 'the place the body names, and the NRN its entry has or is given' },
      audit: { action: 'config.entry.put' },
      body: ConfigEntryWrite,
      responses: { 200: { description: 'Updated', schema: Entry }, 201: { description: 'Created', schema: Entry } },
      errors: [404, 409],
      async handler({ body, auth, permission, audit }) {
        const input = body as Record<string, unknown>;
        if (typeof input.name !== 'string' || !NAME.test(input.name)) throw invalidName('name must match ^[A-Za-z_][A-Za-z0-9_]{0,127}$.');
        if (input.secret !== undefined && typeof input.secret !== 'boolean') throw invalidValue('secret must be a boolean.');
        const value = checkValue(input.value);
        const where = await place(auth.organizationId, input);
        // A folder entry keeps the NRN it was created with (default: the organization's); writing it needs config:write there.
        const existing = where.path === null ? undefined : await entries.findAtPlace(auth.organizationId, input.name, where);
        const nrn = where.path === null ? null : (existing?.nrn ?? where.nrn ?? organizationNrn(auth.organizationId));
        await authorize(deps.dataSource, auth, permission, where.workflowNrn ?? nrn!, placeNotFound);
        const name = input.name;
        const nrnDiffers = () => nrnImmutable(`"${name}" exists at ${where.path} with nrn ${nrn}; the nrn of an entry cannot change.`);
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
          throw secretFlagImmutable(`"${input.name}" exists with secret=${!secret}; the secret flag cannot change.`);
        return { status: result.created ? 201 : 200, body: entryJson(result.row, { mode: result.created ? 'created' : 'updated' }) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/workflows/config',
      operationId: 'listConfigEntries',
      summary: 'List entries at a place (ancestors=true: the whole visible chain; descendants=true: the folder and every folder beneath)',
      tags,
      access: { permission: 'config:read', inHandler: 'the place the query names; a folder lists what the caller may read of it' },
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
          throw invalidPlace('descendants applies to a folder path, without ancestors.');
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
      access: { permission: 'config:read', on: 'config-entry' },
      params: IdParams,
      responses: { 200: { description: 'The entry', schema: Entry } },
      handler: ({ target: entry }) => ({ status: 200, body: entryJson(entry.row) }),
    }),
    defineRoute({
      method: 'patch',
      path: '/workflows/config/{id}',
      operationId: 'rotateConfigEntry',
      summary: 'Rotate the value in place',
      tags,
      access: { permission: 'config:write', on: 'config-entry' },
      audit: { action: 'config.entry.rotate' },
      params: IdParams,
      body: ConfigEntryRotate,
      responses: { 200: { description: 'Rotated', schema: Entry } },
      errors: [404, 409],
      async handler({ params, body, auth, audit, target: { row: current, nrn: guard } }) {
        const input = body as Record<string, unknown>;
        if (input.name !== undefined && input.name !== current.name) throw invalidName('name is immutable.');
        if (input.secret !== undefined && input.secret !== current.secret) throw secretFlagImmutable('The secret flag cannot change.');
        if (input.path !== undefined || input.workflow !== undefined) throw invalidPlace('The place of an entry cannot change.');
        if (input.nrn !== undefined && input.nrn !== current.nrn) throw nrnImmutable('The nrn of an entry cannot change.');
        const value = checkValue(input.value);
        const row = await deps.dataSource.transaction(async (m) => {
          const rotated = await new ConfigEntryRepository(m).rotate(auth.organizationId, params.id, {
            value: current.secret ? null : value,
            encryptedValue: current.secret ? encryptSecret(deps.encryptionKey, value, auth.organizationId) : null,
          });
          if (rotated) await audit.record(m, { nrn: guard, id: rotated.id, details: auditDetails(rotated) });
          return rotated;
        });
        if (!row) throw configEntryNotFound(params.id);
        return { status: 200, body: entryJson(row, { mode: 'updated' }) };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/workflows/config/{id}',
      operationId: 'deleteConfigEntry',
      summary: 'Delete an entry',
      tags,
      access: { permission: 'config:write', on: 'config-entry' },
      audit: { action: 'config.entry.delete' },
      params: IdParams,
      responses: { 204: { description: 'Deleted' } },
      async handler({ params, auth, audit, target: { row: current, nrn: guard } }) {
        await deps.dataSource.transaction(async (m) => {
          if (!(await new ConfigEntryRepository(m).deleteEntry(auth.organizationId, params.id))) throw configEntryNotFound(params.id);
          await audit.record(m, { nrn: guard, id: current.id, details: auditDetails(current) });
        });
        return { status: 204 };
      },
    }),
  ];
}
