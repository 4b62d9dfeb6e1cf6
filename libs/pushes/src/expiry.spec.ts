import { DAY_MS } from '@app/common';
import { mapPush } from './dto/push-response.dto';
import { daysOf, describeDurations, expiresAtFor, hasElapsed, LIFETIME_BY_DURATION } from './expiry';
import type { PushEntity } from './push.entity';

const MINUTE = 60_000;
const CREATED = Date.UTC(2026, 0, 1, 12, 0, 0);

function pushOf(days: number, lifetimeMs = days * DAY_MS): PushEntity {
  return {
    id: 1,
    urlToken: 'token',
    kind: 'text',
    name: null,
    payload: null,
    note: null,
    passphraseHash: null,
    passphraseProtected: false,
    expireAfterDays: days,
    expireAfterViews: 5,
    viewCount: 0,
    deletableByViewer: true,
    retrievalStep: false,
    expired: false,
    deleted: false,
    userId: null,
    auditEntryCount: 1,
    notifyEmailsCount: 0,
    expiredOn: null,
    expiresAt: expiresAtFor(CREATED, lifetimeMs),
    createdAt: CREATED,
    updatedAt: CREATED,
  };
}

describe('the day window', () => {
  const sut = pushOf(1);

  it('keeps a 1-day push active at 23 h 59 min', () => {
    expect(hasElapsed(sut, CREATED + DAY_MS - MINUTE)).toBe(false);
    expect(hasElapsed(sut, CREATED + DAY_MS - 1)).toBe(false);
    expect(mapPush(sut, CREATED + DAY_MS - MINUTE, 'http://x').days_remaining).toBe(1);
  });

  it('has elapsed at exactly 24 h', () => {
    expect(hasElapsed(sut, CREATED + DAY_MS)).toBe(true);
    expect(mapPush(sut, CREATED + DAY_MS, 'http://x').days_remaining).toBe(0);
  });

  it('counts whole days remaining for longer windows and never goes below zero', () => {
    const week = pushOf(7);
    expect(week.expiresAt - CREATED).toBe(7 * DAY_MS);
    expect(mapPush(week, CREATED, 'http://x').days_remaining).toBe(7);
    expect(mapPush(week, CREATED + 2 * DAY_MS + 1, 'http://x').days_remaining).toBe(5);
    expect(mapPush(week, CREATED + 30 * DAY_MS, 'http://x').days_remaining).toBe(0);
  });
});

describe('lifetimes under a day (expire_after_duration 0 to 5)', () => {
  const sut = pushOf(1, LIFETIME_BY_DURATION.get(0) ?? Number.NaN);

  it('keeps a 15-minute push active at minute 14 and has it elapsed at minute 15', () => {
    expect(hasElapsed(sut, CREATED + 14 * MINUTE)).toBe(false);
    expect(hasElapsed(sut, CREATED + 15 * MINUTE - 1)).toBe(false);
    expect(hasElapsed(sut, CREATED + 15 * MINUTE)).toBe(true);
  });

  it('reports the lifetime rounded up to a whole day, and no day left once it has elapsed', () => {
    expect(daysOf(15 * MINUTE)).toBe(1);
    expect(daysOf(12 * 60 * MINUTE)).toBe(1);
    expect(daysOf(DAY_MS)).toBe(1);
    expect(mapPush(sut, CREATED + 14 * MINUTE, 'http://x').days_remaining).toBe(1);
    expect(mapPush(sut, CREATED + 16 * MINUTE, 'http://x').days_remaining).toBe(0);
  });

  it('names every choice, and only the whole days when lifetimes under a day are off', () => {
    expect(describeDurations()).toMatch(/^0 = 15 minutes, 1 = 30 minutes, 2 = 45 minutes, 3 = 1 hour, 4 = 6 hours, 5 = 12 hours, 6 = 1 day, 7 = 2 days, .* 17 = 90 days$/);
    expect(describeDurations(false)).toMatch(/^6 = 1 day, 7 = 2 days, .* 17 = 90 days$/);
  });
});
