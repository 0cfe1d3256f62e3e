/**
 * The shapes of /workflows/config: its bodies (described, not enforced, by their schemas: the
 * routes check each field so that each problem answers with its own code), an entry as JSON and as
 * the audit trail holds it, and the value rule.
 */
import { Type } from '@sinclair/typebox';
import type { ConfigEntryView } from '../../db/repositories/config-entry-repository';
import { organizationNrn } from '../access/nrn';
import { iso } from '../http/iso-date';
import { invalidValue } from './config-errors';

export const NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
export const MAX_VALUE_BYTES = 64 * 1024;
export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
/**
 * The bodies are described, not enforced, by their schemas: the handler checks each field itself so
 * that each problem answers with its own code (invalid_name, invalid_value, invalid_place, invalid_nrn).
 */
const described = (description: string) => Type.Optional(Type.Unknown({ description }));
export const ConfigEntryWrite = Type.Object(
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
export const ConfigEntryRotate = Type.Object(
  {
    value: described('the new value: string of at most 64 KiB (else 400 invalid_value)'),
    name: described('optional; must equal the entry name (it is immutable: 400 invalid_name)'),
    secret: described('optional; must equal the entry secret flag (409 secret_flag_immutable)'),
    nrn: described('optional; must equal the entry nrn (409 nrn_immutable)'),
  },
  { additionalProperties: true, description: 'value is required; the other fields may only repeat what the entry has' },
);
export const Entry = Type.Object({
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

export function entryJson(row: ConfigEntryView, extra: Record<string, unknown> = {}): Record<string, unknown> {
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
export function auditDetails(row: ConfigEntryView, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { name: row.name, secret: row.secret, ...(row.path !== null ? { path: row.path } : { workflow: row.workflowId }), ...extra };
}

export function checkValue(value: unknown): string {
  if (typeof value !== 'string') throw invalidValue('value must be a string.');
  if (Buffer.byteLength(value) > MAX_VALUE_BYTES) throw invalidValue(`value may be at most ${MAX_VALUE_BYTES} bytes.`);
  return value;
}
