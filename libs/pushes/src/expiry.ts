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
