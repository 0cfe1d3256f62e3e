/**
 * Schedule specs: cron strings compiled to structured calendars, and the next matching
 * time of calendars (in the spec's IANA time zone, default UTC) and intervals.
 */
import { invalidArgument } from './errors';
import { api, dur, ms, ts } from './proto';

type Range = api.schedule.v1.IRange;
type Calendar = api.schedule.v1.IStructuredCalendarSpec;
type Spec = api.schedule.v1.IScheduleSpec;
type Interval = api.schedule.v1.IIntervalSpec;

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const DAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

function parseValue(text: string, names: string[] | undefined, offset: number): number {
  const upper = text.toUpperCase();
  if (names) {
    const index = names.findIndex((name) => upper.startsWith(name));
    if (index >= 0) return index + offset;
  }
  if (!/^\d+$/.test(text)) throw invalidArgument(`invalid cron value "${text}"`);
  return Number(text);
}

function parseField(text: string, min: number, max: number, names?: string[], offset = 0): Range[] {
  if (text === '*' || text === '?') return [];
  return text.split(',').map((part) => {
    const [rangePart, stepPart] = part.split('/');
    const step = stepPart ? Number(stepPart) : 1;
    let start: number;
    let end: number;
    if (rangePart === '*' || rangePart === '?') {
      start = min;
      end = max;
    } else if (rangePart.includes('-')) {
      const [a, b] = rangePart.split('-');
      start = parseValue(a, names, offset);
      end = parseValue(b, names, offset);
    } else {
      start = parseValue(rangePart, names, offset);
      end = stepPart ? max : start;
    }
    if (!Number.isInteger(step) || step < 1) throw invalidArgument(`invalid cron step in "${part}"`);
    return { start, end, step };
  });
}

const PREDEFINED: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

/** Go-style durations: 1h30m, 10s, 500ms, 2d is not Go but accepted. */
export function parseDuration(text: string): number {
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/g;
  const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
  let total = 0;
  let consumed = 0;
  let match: RegExpExecArray | null;
  while ((match = re.exec(text)) !== null) {
    total += Number(match[1]) * units[match[2]];
    consumed += match[0].length;
  }
  if (consumed !== text.length || total <= 0) throw invalidArgument(`invalid duration "${text}"`);
  return total;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let format = formatters.get(timeZone);
  if (!format) {
    try {
      format = new Intl.DateTimeFormat('en-US', {
        timeZone,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      });
    } catch {
      throw invalidArgument(`unknown time zone "${timeZone}"`);
    }
    formatters.set(timeZone, format);
  }
  return format;
}

/** Offset (ms) of `timeZone` from UTC at instant `t`. */
function offsetAt(timeZone: string, t: number): number {
  if (!timeZone || timeZone === 'UTC' || timeZone === 'Etc/UTC') return 0;
  const parts: Record<string, number> = {};
  for (const part of formatter(timeZone).formatToParts(new Date(t))) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  const wall = Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second);
  return wall - Math.floor(t / 1000) * 1000;
}

/** Compiles one cron string into structured calendars and/or an interval (and its CRON_TZ). */
export function compileCron(input: string): { calendars: Calendar[]; intervals: Interval[]; timeZone?: string } {
  let text = input.replace(/#.*$/, '').trim();
  const tz = /^(CRON_TZ|TZ)=(\S+)\s+/.exec(text);
  let timeZone: string | undefined;
  if (tz) {
    timeZone = tz[2];
    formatter(timeZone);
    text = text.slice(tz[0].length);
  }
  if (text.startsWith('@every')) {
    const [every, phase] = text.slice('@every'.length).trim().split('/');
    return {
      calendars: [],
      intervals: [{ interval: dur(parseDuration(every)), phase: phase ? dur(parseDuration(phase)) : undefined }],
      timeZone,
    };
  }
  text = PREDEFINED[text] ?? text;
  const fields = text.split(/\s+/);
  let second = '0';
  let minute: string, hour: string, dom: string, month: string, dow: string;
  let year = '*';
  if (fields.length === 5) [minute, hour, dom, month, dow] = fields;
  else if (fields.length === 6) [minute, hour, dom, month, dow, year] = fields;
  else if (fields.length === 7) [second, minute, hour, dom, month, dow, year] = fields;
  else throw invalidArgument(`invalid cron string "${input}"`);
  const base: Calendar = {
    second: parseField(second, 0, 59),
    minute: parseField(minute, 0, 59),
    hour: parseField(hour, 0, 23),
    month: parseField(month, 1, 12, MONTHS, 1),
    year: parseField(year, 1970, 2100),
    comment: input,
  };
  const domRanges = parseField(dom, 1, 31);
  const dowRanges = parseField(dow, 0, 7, DAYS, 0).flatMap((r) => normaliseSunday(r));
  // As the real server: both day fields must match (it does not implement classic cron's OR of the two).
  return { calendars: [{ ...base, dayOfMonth: domRanges, dayOfWeek: dowRanges }], intervals: [], timeZone };
}

function normaliseSunday(range: Range): Range[] {
  const start = range.start ?? 0;
  const end = Math.max(range.end ?? start, start);
  if (end < 7) return [range];
  const ranges: Range[] = [];
  if (start < 7) ranges.push({ start, end: 6, step: range.step });
  if ((7 - start) % (range.step || 1) === 0) ranges.push({ start: 0, end: 0, step: 1 });
  return ranges;
}

/** The spec as the server returns it: cron strings compiled, time zone resolved. */
export function canonicalSpec(spec: Spec): Spec {
  let timezoneName = spec.timezoneName ?? '';
  if (timezoneName) formatter(timezoneName);
  const calendars: Calendar[] = [...(spec.structuredCalendar ?? [])];
  const intervals: Interval[] = [...(spec.interval ?? [])];
  for (const cron of spec.cronString ?? []) {
    const compiled = compileCron(cron);
    calendars.push(...compiled.calendars);
    intervals.push(...compiled.intervals);
    if (compiled.timeZone && !timezoneName) timezoneName = compiled.timeZone;
  }
  for (const interval of intervals) {
    if (ms(interval.interval) < 1000) throw invalidArgument('schedule intervals must be at least 1 second');
  }
  if ((spec.calendar ?? []).length > 0)
    throw invalidArgument('CalendarSpec (string form) is not supported by the stand-in; use structured calendars or cron strings');
  return {
    structuredCalendar: calendars,
    interval: intervals,
    excludeStructuredCalendar: spec.excludeStructuredCalendar ?? [],
    startTime: spec.startTime,
    endTime: spec.endTime,
    jitter: spec.jitter,
    timezoneName,
  };
}

function inRanges(ranges: Range[] | null | undefined, value: number): boolean {
  if (!ranges || ranges.length === 0) return true;
  return ranges.some((r) => {
    const start = r.start ?? 0;
    const end = Math.max(r.end ?? start, start);
    const step = r.step && r.step > 0 ? r.step : 1;
    return value >= start && value <= end && (value - start) % step === 0;
  });
}

function nextCalendar(calendar: Calendar, after: number): number | undefined {
  let t = Math.floor(after / 1000) * 1000 + 1000;
  for (let i = 0; i < 100_000; i++) {
    const d = new Date(t);
    const year = d.getUTCFullYear();
    if (year > 2100) return undefined;
    if (!inRanges(calendar.year, year)) {
      t = Date.UTC(year + 1, 0, 1);
      continue;
    }
    if (!inRanges(calendar.month, d.getUTCMonth() + 1)) {
      t = Date.UTC(year, d.getUTCMonth() + 1, 1);
      continue;
    }
    if (!inRanges(calendar.dayOfMonth, d.getUTCDate()) || !inRanges(calendar.dayOfWeek, d.getUTCDay())) {
      t = Date.UTC(year, d.getUTCMonth(), d.getUTCDate() + 1);
      continue;
    }
    if (!inRanges(calendar.hour, d.getUTCHours())) {
      t = Date.UTC(year, d.getUTCMonth(), d.getUTCDate(), d.getUTCHours() + 1);
      continue;
    }
    if (!inRanges(calendar.minute, d.getUTCMinutes())) {
      t = Date.UTC(year, d.getUTCMonth(), d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes() + 1);
      continue;
    }
    if (!inRanges(calendar.second, d.getUTCSeconds())) {
      t += 1000;
      continue;
    }
    return t;
  }
  return undefined;
}

/** Next match of a calendar read in `timeZone`: search in wall-clock time, convert back to UTC. */
function nextCalendarIn(calendar: Calendar, after: number, timeZone: string): number | undefined {
  if (!timeZone || timeZone === 'UTC' || timeZone === 'Etc/UTC') return nextCalendar(calendar, after);
  let wall = after + offsetAt(timeZone, after);
  for (let i = 0; i < 8; i++) {
    const candidate = nextCalendar(calendar, wall);
    if (candidate === undefined) return undefined;
    const utc = candidate - offsetAt(timeZone, candidate - offsetAt(timeZone, candidate));
    if (utc > after) return utc;
    wall = candidate;
  }
  return undefined;
}

function matchesCalendar(calendar: Calendar, utc: number, timeZone: string): boolean {
  const d = new Date(utc + offsetAt(timeZone, utc));
  return (
    inRanges(calendar.year, d.getUTCFullYear()) &&
    inRanges(calendar.month, d.getUTCMonth() + 1) &&
    inRanges(calendar.dayOfMonth, d.getUTCDate()) &&
    inRanges(calendar.dayOfWeek, d.getUTCDay()) &&
    inRanges(calendar.hour, d.getUTCHours()) &&
    inRanges(calendar.minute, d.getUTCMinutes()) &&
    inRanges(calendar.second, d.getUTCSeconds())
  );
}

/** The first nominal time strictly after `after` (ms), or undefined. */
export function nextTime(spec: Spec, after: number): number | undefined {
  const startTime = ms(spec.startTime);
  const endTime = ms(spec.endTime);
  let from = Math.max(after, startTime > 0 ? startTime - 1 : after);
  for (let guard = 0; guard < 10_000; guard++) {
    let best: number | undefined;
    for (const calendar of spec.structuredCalendar ?? []) {
      const t = nextCalendarIn(calendar, from, spec.timezoneName ?? '');
      if (t !== undefined && (best === undefined || t < best)) best = t;
    }
    for (const interval of spec.interval ?? []) {
      const every = ms(interval.interval);
      const phase = ms(interval.phase);
      const t = (Math.floor((from - phase) / every) + 1) * every + phase;
      if (best === undefined || t < best) best = t;
    }
    if (best === undefined) return undefined;
    if (endTime > 0 && best > endTime) return undefined;
    if ((spec.excludeStructuredCalendar ?? []).some((c) => matchesCalendar(c, best, spec.timezoneName ?? ''))) {
      from = best;
      continue;
    }
    return best;
  }
  return undefined;
}

export function futureTimes(spec: Spec, after: number, count: number): api.schedule.v1.IScheduleInfo['futureActionTimes'] {
  const times = [];
  let t = after;
  for (let i = 0; i < count; i++) {
    const next = nextTime(spec, t);
    if (next === undefined) break;
    times.push(ts(next));
    t = next;
  }
  return times;
}
