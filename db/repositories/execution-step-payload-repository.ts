/**
 * The `execution_step_payloads` table: step output items stored once per execution and content, written
 * with the step records that name them (execution-step-repository.ts) and read back joined to them (rows: ../entities/execution-step-payload.ts).
 */
import { bound, raw, sql, type Sql } from '../sql-builder';

/**
 * Items whose jsonb text is longer than this are stored apart, once: below it a payload row (and its
 * index entry) would cost more than the copies it saves.
 */
export const PAYLOAD_MIN_BYTES = 256;

/** The hash that names the items `items` (a jsonb expression): SHA-256 of their jsonb text. */
export const payloadHashSql = (items: string): string => `sha256(convert_to((${items})::text, 'UTF8'))`;

/** Whether the items `items` (a jsonb expression) are stored apart. */
export const storedApartSql = (items: string): string => `octet_length((${items})::text) > ${PAYLOAD_MIN_BYTES}`;

/** The insert of the large items of a batch of step records, once each (also one part of a step batch). */
export function insertPayloadsSql(executionId: unknown, recordsJson: unknown): Sql {
  return sql`INSERT INTO execution_step_payloads (execution_id, hash, items)
    SELECT DISTINCT ON (hash) ${bound(executionId)}, ${raw(payloadHashSql("r->'items'"))} AS hash, r->'items'
    FROM jsonb_array_elements(${bound(recordsJson)}::jsonb) AS r
    WHERE ${raw(storedApartSql("r->'items'"))}
    ON CONFLICT DO NOTHING`;
}
