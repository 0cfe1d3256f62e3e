/** Timestamps in API bodies: ISO 8601 in UTC, whether the driver gave a Date or a string. */
export function iso(value: Date | string): string {
  return (value instanceof Date ? value : new Date(value)).toISOString();
}
