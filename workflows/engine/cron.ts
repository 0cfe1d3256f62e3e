/**
 * The cron dialect of cron triggers, checked here and run as written
 * (api/workflows/cron-spec.ts turns it into Temporal's schedule spec):
 * - 5 fields: minute hour day-of-month month day-of-week (seconds 0);
 * - 6 fields: second minute hour day-of-month month day-of-week (seconds first,
 *   as cron-parser reads them; Temporal's own 6-field form ends with a year
 *   instead, so the translation never hands it 6 fields);
 * - `*`, `?`, lists, ranges, steps, month and weekday names, `n#k` (the k-th
 *   weekday n of the month, alone in its field); when both day fields are
 *   restricted, a day matching either runs (classic cron);
 * - macros `@yearly`, `@annually`, `@monthly`, `@weekly`, `@daily`,
 *   `@midnight`, `@hourly` and `@every <duration>` (whole seconds, counted
 *   from the Unix epoch as Temporal does);
 * - the time zone is the trigger's `timezone` (IANA name, default UTC).
 * `L` and `W` forms are refused: Temporal schedules cannot express them.
 * Hand-written because cron-parser depends on luxon and Intl, which the
 * workflow sandbox lacks.
 */
import { parseDuration } from './durations';

const MACROS = new Set(['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly']);
const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const DAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

interface FieldSpec {
  name: string;
  min: number;
  max: number;
  names?: string[];
  /** First name maps to this number. */
  nameBase?: number;
  special?: RegExp;
}

const SECOND: FieldSpec = { name: 'second', min: 0, max: 59 };
const FIELDS: FieldSpec[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: MONTHS, nameBase: 1 },
  { name: 'day of week', min: 0, max: 7, names: DAYS, nameBase: 0, special: /^([0-7]|[A-Z]{3})#[1-5]$/ },
];

/** Undefined when valid, else a message naming the problem. */
export function cronError(expression: unknown): string | undefined {
  if (typeof expression !== 'string' || expression.trim() === '') return 'must be a non-empty cron expression';
  const text = expression.trim();
  if (text.startsWith('@')) {
    const lower = text.toLowerCase();
    if (MACROS.has(lower)) return undefined;
    const every = /^@every\s+(\S+)$/i.exec(text);
    if (every) {
      const ms = parseDuration(every[1]);
      if (ms === undefined || ms < 1000) return `"${every[1]}" is not a duration of at least 1s`;
      return ms % 1000 === 0 ? undefined : `"${every[1]}" is not a whole number of seconds`;
    }
    return `unknown cron macro "${text}"`;
  }
  const parts = text.split(/\s+/);
  if (parts.length !== 5 && parts.length !== 6) return `must have 5 or 6 fields (got ${parts.length})`;
  const specs = parts.length === 6 ? [SECOND, ...FIELDS] : FIELDS;
  for (let i = 0; i < parts.length; i += 1) {
    const problem = fieldError(parts[i].toUpperCase(), specs[i]);
    if (problem) return `${specs[i].name} field "${parts[i]}": ${problem}`;
  }
  return undefined;
}

function fieldError(field: string, spec: FieldSpec): string | undefined {
  if (/[LW]/.test(field.replace(/[A-Z]{3}/g, ''))) return '"L" and "W" forms are not supported (Temporal schedules cannot express them)';
  if (field.includes('#') && !spec.special?.test(field)) return '"n#k" must be the only item of the day-of-week field';
  for (const item of field.split(',')) {
    if (item === '') return 'has an empty list item';
    if (spec.special?.test(item)) continue;
    const [range, step, extra] = item.split('/');
    if (extra !== undefined) return 'has more than one step';
    if (step !== undefined && !/^\d+$/.test(step)) return `step "${step}" is not a number`;
    if (step !== undefined && Number(step) === 0) return 'step must be at least 1';
    if (range === '*' || range === '?') continue;
    const bounds = range.split('-');
    if (bounds.length > 2) return `"${range}" is not a range`;
    const values = bounds.map((bound) => value(bound, spec));
    if (values.some((v) => v === undefined)) return `values must be ${spec.min}-${spec.max}`;
    if (values.length === 2 && (values[0] as number) > (values[1] as number)) return `range "${range}" is reversed`;
  }
  return undefined;
}

function value(text: string, spec: FieldSpec): number | undefined {
  if (/^\d{1,2}$/.test(text)) {
    const n = Number(text);
    return n >= spec.min && n <= spec.max ? n : undefined;
  }
  const index = spec.names?.indexOf(text) ?? -1;
  return index >= 0 ? index + (spec.nameBase ?? 0) : undefined;
}

const MACRO_SECONDS: Record<string, number> = {
  '@hourly': 3600,
  '@daily': 86_400,
  '@midnight': 86_400,
  '@weekly': 7 * 86_400,
  '@monthly': 28 * 86_400,
  '@yearly': 365 * 86_400,
  '@annually': 365 * 86_400,
};

/**
 * A lower bound on the seconds between two runs of a valid expression: the
 * smallest gap between the seconds it fires at (6 fields), else between its
 * minutes, else an hour. Used to refuse schedules that fire too often.
 */
export function minimumIntervalSeconds(expression: string): number {
  const text = expression.trim();
  if (text.startsWith('@')) {
    const every = /^@every\s+(\S+)$/i.exec(text);
    return every ? (parseDuration(every[1]) ?? 0) / 1000 : (MACRO_SECONDS[text.toLowerCase()] ?? 3600);
  }
  const parts = text.split(/\s+/);
  if (parts.length === 6) {
    const seconds = expand(parts[0], SECOND);
    if (seconds.length > 1) return smallestGap(seconds, 60);
  }
  const minutes = expand(parts[parts.length === 6 ? 1 : 0], FIELDS[0]);
  return minutes.length > 1 ? 60 * smallestGap(minutes, 60) : 3600;
}

/** The values a second or minute field selects. */
function expand(field: string, spec: FieldSpec): number[] {
  const values = new Set<number>();
  for (const item of field.split(',')) {
    const [range, step] = item.split('/');
    const every = step === undefined ? 1 : Number(step);
    const [from, to] =
      range === '*' || range === '?'
        ? [spec.min, spec.max]
        : range.includes('-')
          ? range.split('-').map(Number)
          : [Number(range), step === undefined ? Number(range) : spec.max];
    for (let v = from; v <= to; v += every) values.add(v);
  }
  return [...values].sort((a, b) => a - b);
}

/** The smallest distance between consecutive values, counting the wrap around `cycle`. */
function smallestGap(sorted: number[], cycle: number): number {
  let gap = sorted[0] + cycle - sorted[sorted.length - 1];
  for (let i = 1; i < sorted.length; i += 1) gap = Math.min(gap, sorted[i] - sorted[i - 1]);
  return gap;
}
