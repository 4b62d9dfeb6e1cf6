import { DAY_MS } from '@app/common';
import { mapPush } from './dto/push-response.dto';
import { expiresAtFor, hasElapsed } from './expiry';
import type { PushEntity } from './push.entity';

const MINUTE = 60_000;
const CREATED = Date.UTC(2026, 0, 1, 12, 0, 0);

function pushOf(days: number): PushEntity {
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
    expiredOn: null,
    expiresAt: expiresAtFor(CREATED, days),
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
