import assert from 'node:assert/strict';
import { canonicalSpec, nextTime } from '../temporal-server/calendar';

const next3 = (spec: Parameters<typeof canonicalSpec>[0], from: string): string[] => {
  const canonical = canonicalSpec(spec);
  const out: string[] = [];
  let t = Date.parse(from);
  for (let i = 0; i < 3; i++) {
    const n = nextTime(canonical, t);
    if (n === undefined) break;
    out.push(new Date(n).toISOString().replace('.000', ''));
    t = n;
  }
  return out;
};

describe('temporal stand-in: schedule spec evaluation', () => {
  it('evaluates cron strings (5, 6 and 7 fields, names, steps, predefined)', () => {
    assert.deepEqual(next3({ cronString: ['*/10 * * * *'] }, '2026-03-28T12:03:00Z'), [
      '2026-03-28T12:10:00Z',
      '2026-03-28T12:20:00Z',
      '2026-03-28T12:30:00Z',
    ]);
    assert.deepEqual(next3({ cronString: ['0 12 * * MON-FRI'] }, '2026-03-27T13:00:00Z'), [
      '2026-03-30T12:00:00Z',
      '2026-03-31T12:00:00Z',
      '2026-04-01T12:00:00Z',
    ]);
    assert.deepEqual(next3({ cronString: ['30 15 10 1 * * 2027'] }, '2026-01-01T00:00:00Z'), [
      '2027-01-01T10:15:30Z',
      '2027-02-01T10:15:30Z',
      '2027-03-01T10:15:30Z',
    ]);
    assert.deepEqual(next3({ cronString: ['@monthly'] }, '2026-01-15T00:00:00Z'), [
      '2026-02-01T00:00:00Z',
      '2026-03-01T00:00:00Z',
      '2026-04-01T00:00:00Z',
    ]);
    // Temporal ANDs day-of-month and day-of-week (it does not implement classic cron's OR; the real dev
    // server gives 2027-02-01 and 2027-02-15, both Mondays, for "0 0 1,15 * MON"): Fridays the 13th only.
    assert.deepEqual(next3({ cronString: ['0 0 13 * 5'] }, '2026-03-01T00:00:00Z'), [
      '2026-03-13T00:00:00Z',
      '2026-11-13T00:00:00Z',
      '2027-08-13T00:00:00Z',
    ]);
  });

  it('evaluates intervals with phase and structured calendars with excludes and end time', () => {
    assert.deepEqual(next3({ interval: [{ interval: { seconds: 3600 }, phase: { seconds: 900 } }] } as never, '2026-03-28T12:20:00Z'), [
      '2026-03-28T13:15:00Z',
      '2026-03-28T14:15:00Z',
      '2026-03-28T15:15:00Z',
    ]);
    assert.deepEqual(
      next3(
        {
          structuredCalendar: [{ hour: [{ start: 9, end: 9 }], minute: [{ start: 0 }], second: [{ start: 0 }] }],
          excludeStructuredCalendar: [{ dayOfWeek: [{ start: 0 }, { start: 6 }] }],
          endTime: { seconds: Date.parse('2026-04-01T00:00:00Z') / 1000 },
        } as never,
        '2026-03-27T10:00:00Z',
      ),
      ['2026-03-30T09:00:00Z', '2026-03-31T09:00:00Z'],
    );
  });

  it('evaluates calendars in a time zone, across daylight saving changes', () => {
    assert.deepEqual(next3({ cronString: ['0 9 * * *'], timezoneName: 'Europe/Paris' }, '2026-03-28T12:00:00Z'), [
      '2026-03-29T07:00:00Z',
      '2026-03-30T07:00:00Z',
      '2026-03-31T07:00:00Z',
    ]);
    assert.deepEqual(next3({ cronString: ['CRON_TZ=Asia/Tokyo 30 8 * * MON-FRI'] }, '2026-03-28T12:00:00Z'), [
      '2026-03-29T23:30:00Z',
      '2026-03-30T23:30:00Z',
      '2026-03-31T23:30:00Z',
    ]);
    assert.throws(() => canonicalSpec({ cronString: ['0 9 * * *'], timezoneName: 'Mars/Olympus' }), /unknown time zone/);
    assert.throws(() => canonicalSpec({ cronString: ['0 9 * *'] }), /invalid cron/);
  });
});
