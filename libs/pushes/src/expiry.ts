import { DAY_MS } from '@app/common';

/**
 * The day window: a push created at `createdAt` for `days` days is active strictly before
 * createdAt + days × 24 h and elapsed from that instant on. The SQL conditions in the
 * repository (`expires_at > :now`, `expires_at <= :now`) are the same rule.
 */
export function expiresAtFor(createdAt: number, days: number): number {
  return createdAt + days * DAY_MS;
}

export function hasElapsed(push: { expiresAt: number }, now: number): boolean {
  return now >= push.expiresAt;
}

/**
 * `expire_after_duration` as the reference's official CLI (pwpush-cli 0.16+) sends it instead of
 * `expire_after_days`: the reference's duration choices that are whole days.
 */
export const DAYS_BY_DURATION: ReadonlyMap<number, number> = new Map([
  [6, 1], [7, 2], [8, 3], [9, 4], [10, 5], [11, 6], [12, 7], [13, 14], [14, 21], [15, 30], [16, 60], [17, 90],
]);

/** "6 = 1 day, 7 = 2 days, ..., 17 = 90 days", for messages and the OpenAPI document. */
export function describeDurations(): string {
  return [...DAYS_BY_DURATION].map(([duration, days]) => `${duration} = ${days} day${days === 1 ? '' : 's'}`).join(', ');
}

