import { closeAfterLifetime, daysRemaining, describeCloseAfter } from './closing-times';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

describe('closing times', () => {
  it.each([
    [0, 15 * MINUTE],
    [5, 12 * 60 * MINUTE],
    [6, DAY],
    [8, 3 * DAY],
    [11, 6 * DAY],
    [12, 7 * DAY],
    [14, 21 * DAY],
    [15, 30 * DAY],
    [17, 90 * DAY],
  ])('close_after_duration %i lasts exactly %i ms', (duration, lifetime) => {
    expect(closeAfterLifetime(duration)).toBe(lifetime);
  });

  it.each([-1, 18, 2.5])('refuses %s', (duration) => {
    expect(closeAfterLifetime(duration)).toBeUndefined();
  });

  it('describes every choice for messages and the OpenAPI document', () => {
    const sut = describeCloseAfter();
    expect(sut.startsWith('0 = 15 minutes, 1 = 30 minutes')).toBe(true);
    expect(sut.endsWith('17 = 90 days')).toBe(true);
  });

  it('counts whole days left, rounded up, and none once closed or past its time', () => {
    const now = 1_000_000_000_000;
    expect(daysRemaining({ state: 'open', closeAfterAt: now + 15 * MINUTE }, now)).toBe(1);
    expect(daysRemaining({ state: 'ready', closeAfterAt: now + 3 * DAY }, now)).toBe(3);
    expect(daysRemaining({ state: 'ready', closeAfterAt: now + 3 * DAY + 1 }, now)).toBe(4);
    expect(daysRemaining({ state: 'open', closeAfterAt: now - 1 }, now)).toBe(0);
    expect(daysRemaining({ state: 'closed', closeAfterAt: now + 3 * DAY }, now)).toBe(0);
  });
});
