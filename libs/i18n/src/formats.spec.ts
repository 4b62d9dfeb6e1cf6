import { formatBytes, formatDateTime, formatDuration, formatTimeFromNow } from './formats';

const MINUTE = 60_000;
const DAY = 1440 * MINUTE;

describe('formats in a language (Intl)', () => {
  it('dates in UTC, saying so', () => {
    const time = '2026-11-27T14:05:00.000Z';
    expect(formatDateTime('en', time)).toBe('Nov 27, 2026, 02:05 PM UTC');
    expect(formatDateTime('de', time)).toBe('27. Nov. 2026, 14:05 UTC');
    expect(formatDateTime('ja', time)).toBe('2026年11月27日 14:05 UTC');
  });

  it('lifetimes and times from now in whole days, hours or minutes', () => {
    expect(formatDuration('en', 7 * DAY)).toBe('7 days');
    expect(formatDuration('de', DAY)).toBe('1 Tag');
    expect(formatDuration('en', 90 * MINUTE)).toBe('1 hour');
    expect(formatDuration('en', 10_000)).toBe('1 minute');
    expect(formatTimeFromNow('en', 3 * DAY)).toBe('in 3 days');
    expect(formatTimeFromNow('de', 3 * DAY)).toBe('in 3 Tagen');
    expect(formatTimeFromNow('ja', 3 * DAY)).toBe('3 日後');
  });

  it('sizes in decimal units, as their names say', () => {
    expect(formatBytes('en', 512)).toBe('512 bytes');
    expect(formatBytes('en', 16 * 1024 * 1024)).toBe('16.8 MB');
    expect(formatBytes('de', 1500)).toBe('1,5 kB');
  });
});
