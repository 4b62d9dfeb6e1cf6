import { loadSettings, SettingsError } from './settings';

const DAY = 86_400_000;

describe('PWP__PURGE_AFTER', () => {
  const purgeAfter = (value?: string) => loadSettings({ PWP__PURGE_AFTER: value }).purgeAfterMs;

  it('is disabled by default and by "disabled"', () => {
    expect(purgeAfter(undefined)).toBeUndefined();
    expect(purgeAfter('')).toBeUndefined();
    expect(purgeAfter('disabled')).toBeUndefined();
  });

  it.each([
    ['30 days', 30 * DAY],
    ['1 day', DAY],
    ['3 months', 90 * DAY],
    ['1 year', 365 * DAY],
    ['2 weeks', 14 * DAY],
    ['12 hours', DAY / 2],
    ['90 minutes', 90 * 60_000],
    ['3 Months', 90 * DAY],
    ['7days', 7 * DAY],
  ])('reads %s', (value, ms) => {
    expect(purgeAfter(value)).toBe(ms);
  });

  it.each(['3 fortnights', 'soon', '0 days', '-1 day', '1.5 days', 'days', '30'])('stops start-up for %s, naming the variable', (value) => {
    expect(() => purgeAfter(value)).toThrow(SettingsError);
    expect(() => purgeAfter(value)).toThrow(/Invalid setting PWP__PURGE_AFTER/);
  });
});
