/**
 * Durations as definitions write them: numbers are milliseconds; strings are
 * `500ms`, `30s`, `5m`, `2h`, `1d`, `1w` (also combined, `1h30m`) or ISO-8601
 * (`PT24H`, `P1DT2H`). Pure, so the workflow sandbox parses them identically.
 */
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
const SIMPLE = /^(\d+(?:\.\d+)?)(ms|s|m|h|d|w)$/;
const COMPOUND = /^(?:\d+(?:\.\d+)?(?:ms|s|m|h|d|w))+$/;
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d|w)/g;
const ISO = /^P(?:(\d+(?:\.\d+)?)W)?(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/i;

/** Milliseconds, or undefined when the value is not a duration. */
export function parseDuration(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const text = value.trim().toLowerCase();
  if (text === '') return undefined;
  if (/^\d+(?:\.\d+)?$/.test(text)) return Number(text);
  const simple = SIMPLE.exec(text);
  if (simple) return Number(simple[1]) * UNIT_MS[simple[2]];
  if (COMPOUND.test(text)) {
    let total = 0;
    for (const match of text.matchAll(PART)) total += Number(match[1]) * UNIT_MS[match[2]];
    return total;
  }
  const iso = ISO.exec(value.trim());
  if (iso && value.trim().length > 1 && !/T$/i.test(value.trim())) {
    const [, w, d, h, m, s] = iso.map((part) => (part === undefined ? 0 : Number(part)));
    return w * UNIT_MS.w + d * UNIT_MS.d + h * UNIT_MS.h + m * UNIT_MS.m + s * UNIT_MS.s;
  }
  return undefined;
}

export function isDuration(value: unknown): boolean {
  return parseDuration(value) !== undefined;
}
