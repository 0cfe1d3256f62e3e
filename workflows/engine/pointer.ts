/** JSON pointer helpers (RFC 6901) for naming offending fields. */
export function escapeSegment(segment: string | number): string {
  return String(segment).replace(/~/g, '~0').replace(/\//g, '~1');
}

export function pointer(...segments: Array<string | number>): string {
  return segments.map((s) => `/${escapeSegment(s)}`).join('');
}

export function join(base: string, ...segments: Array<string | number>): string {
  return base + pointer(...segments);
}
