/** The few helpers hand-written SQL needs, in one place. */

/** PostgreSQL unique_violation (23505): the last line of idempotency, turned into a 409 by callers. */
export function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23505';
}
