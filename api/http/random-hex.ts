/**
 * Random hex for identifiers, drawn from a pooled CSPRNG buffer: one
 * `randomFillSync` per 4 KiB instead of one per id, which shows on hot write
 * paths such as publishing. Ids are not secrets; tokens still use randomBytes.
 */
import { randomFillSync } from 'node:crypto';

const POOL_SIZE = 4096;
const pool = Buffer.alloc(POOL_SIZE);
let offset = POOL_SIZE;

export function randomHex(bytes: number): string {
  if (offset + bytes > POOL_SIZE) {
    randomFillSync(pool);
    offset = 0;
  }
  const hex = pool.toString('hex', offset, offset + bytes);
  offset += bytes;
  return hex;
}
