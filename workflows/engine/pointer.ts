/** JSON pointer helpers (RFC 6901) for naming offending fields. */
export function escapeSegment(segment: string | number): string {
  const text = String(segment);
  return text.includes('~') || text.includes('/') ? text.replace(/~/g, '~0').replace(/\//g, '~1') : text;
}

export function pointer(...segments: Array<string | number>): string {
  let out = '';
  for (const segment of segments) out += `/${escapeSegment(segment)}`;
  return out;
}

export function join(base: string, ...segments: Array<string | number>): string {
  return base + pointer(...segments);
}
