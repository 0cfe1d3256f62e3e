/**
 * One cron dialect from validation to the Temporal schedule (the dialect:
 * workflows/engine/cron.ts). An expression the validator accepted is turned
 * into the spec Temporal runs, explicitly, and its next runs are read the way
 * the dialect says (cron-parser, seconds first for 6 fields):
 * - Temporal reads a 6-field cron string as minute..day-of-week plus a YEAR,
 *   so every expression is handed over in its 7-field form
 *   (`second minute hour day-of-month month day-of-week year`);
 * - macros become their 5-field equivalents; `@every` an interval (Temporal
 *   and this reading both count it from the Unix epoch);
 * - `?` becomes `*`; `n#k` (a `#` starts a comment for Temporal) becomes
 *   weekday n on days 7k-6..7k;
 * - Temporal ANDs the two day fields where classic cron ORs them when both
 *   are restricted: such an expression becomes two cron strings, one per day
 *   field (a schedule fires at the union of its specs).
 * Times in a daylight-saving gap or overlap of the time zone are where the two
 * readings can part: Temporal skips a time that does not exist and fires twice
 * at one that occurs twice.
 */
import { CronExpressionParser } from 'cron-parser';
import { parseDuration } from '../../workflows/engine';

const MACROS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

/** What a valid expression means: an interval from the epoch, or six fields (seconds first). */
type Reading = { everyMs: number } | { fields: string[] };

function read(expression: string): Reading {
  const text = expression.trim();
  const every = /^@every\s+(\S+)$/i.exec(text);
  if (every) return { everyMs: parseDuration(every[1]) ?? 0 };
  const parts = (MACROS[text.toLowerCase()] ?? text).toUpperCase().split(/\s+/);
  return { fields: parts.length === 5 ? ['0', ...parts] : parts };
}

const WILD = new Set(['*', '?']);

export interface TemporalScheduleSpec {
  cronExpressions?: string[];
  intervals?: Array<{ every: number }>;
  timezone: string;
}

/** The Temporal schedule spec that runs a valid expression as the dialect reads it, in `timezone`. */
export function temporalScheduleSpec(expression: string, timezone: string): TemporalScheduleSpec {
  const reading = read(expression);
  if ('everyMs' in reading) return { intervals: [{ every: reading.everyMs }], timezone };
  const [second, minute, hour, dom, month, dow] = reading.fields;
  const nth = /^(\w+)#([1-5])$/.exec(dow);
  // The k-th weekday n of a month falls on days 7k-6..7k.
  const weekday = nth ? nth[1] : WILD.has(dow) ? '*' : dow;
  const weekdayDays = nth ? `${7 * Number(nth[2]) - 6}-${7 * Number(nth[2])}` : '*';
  const line = (days: string, weekdays: string) => [second, minute, hour, days, month, weekdays, '*'].join(' ');
  const cronExpressions =
    !WILD.has(dom) && !WILD.has(dow) ? [line(dom, '*'), line(weekdayDays, weekday)] : [line(WILD.has(dom) ? weekdayDays : dom, weekday)];
  return { cronExpressions, timezone };
}

/** The next `count` runs after `from`, as the dialect reads the expression; [] when it cannot be read. */
export function nextRuns(expression: string, timezone: string, from: Date, count: number): Date[] {
  try {
    const reading = read(expression);
    if ('everyMs' in reading) {
      if (reading.everyMs <= 0) return [];
      const first = (Math.floor(from.getTime() / reading.everyMs) + 1) * reading.everyMs;
      return Array.from({ length: count }, (_, i) => new Date(first + i * reading.everyMs));
    }
    const parsed = CronExpressionParser.parse(reading.fields.join(' '), { currentDate: from, tz: timezone });
    return Array.from({ length: count }, () => parsed.next().toDate());
  } catch {
    return [];
  }
}
