import assert from 'node:assert/strict';
import { cronError, minimumIntervalSeconds, parseDuration } from '../../workflows/engine';

describe('engine: durations', () => {
  const valid: Array<[unknown, number]> = [
    ['500ms', 500],
    ['30s', 30_000],
    ['2h', 7_200_000],
    ['1d', 86_400_000],
    ['1h30m', 5_400_000],
    ['PT24H', 86_400_000],
    ['P1DT2H', 93_600_000],
    ['PT0.5S', 500],
    [250, 250],
    ['1500', 1500],
  ];
  for (const [input, ms] of valid) it(`parses ${JSON.stringify(input)}`, () => assert.equal(parseDuration(input), ms));
  for (const input of ['', 'soon', '5 minutes', 'P', 'PT', -1, NaN, Infinity, null, {}, '1x']) {
    it(`rejects ${JSON.stringify(input)}`, () => assert.equal(parseDuration(input), undefined));
  }
});

describe('engine: cron expressions', () => {
  for (const expression of [
    '* * * * *',
    '*/5 0-23 1,15 JAN-DEC MON-FRI',
    '0 0 12 * * ?',
    '@hourly',
    '@every 90s',
    '0 9 * * 1#2',
    '0 0 12 * JUL WED',
  ]) {
    it(`accepts ${expression}`, () => assert.equal(cronError(expression), undefined));
  }
  for (const expression of [
    '',
    '* * * *',
    '61 * * * *',
    '* 24 * * *',
    '*/0 * * * *',
    '5-1 * * * *',
    '@often',
    '@every 10ms',
    '* * * * * * *',
    // `L` and `W` forms: Temporal schedules cannot express them, so they are refused rather than run otherwise.
    '0 0 L * *',
    '0 0 LW * *',
    '0 0 15W * *',
    '0 9 * * 5L',
    '0 9 * * 1#2,3',
    '@every 1500ms',
  ]) {
    it(`rejects ${JSON.stringify(expression)}`, () => assert.equal(typeof cronError(expression), 'string'));
  }

  it('bounds how often a schedule fires from below', () => {
    const cases: Array<[string, number]> = [
      ['* * * * *', 60],
      ['*/5 * * * *', 300],
      ['0,30 * * * *', 1800],
      ['0,59 * * * *', 60],
      ['0 3 * * *', 3600],
      ['* * * * * *', 1],
      ['*/10 * * * * *', 10],
      ['0 * * * * *', 60],
      ['15-20 0 * * * *', 1],
      ['@every 30s', 30],
      ['@every 2m', 120],
      ['@hourly', 3600],
      ['@daily', 86_400],
    ];
    for (const [expression, seconds] of cases) assert.equal(minimumIntervalSeconds(expression), seconds, expression);
  });
});
