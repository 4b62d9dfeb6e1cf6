import { DAY_MS, HOUR_MS, MINUTE_MS } from '@app/common';

/**
 * The lifetime window: a push created at `createdAt` with a lifetime of `lifetimeMs` is active
 * strictly before createdAt + lifetimeMs and elapsed from that instant on. The SQL conditions in
 * the repository (`expires_at > :now`, `expires_at <= :now`) are the same rule.
 */
export function expiresAtFor(createdAt: number, lifetimeMs: number): number {
  return createdAt + lifetimeMs;
}

export function hasElapsed(push: { expiresAt: number }, now: number): boolean {
  return now >= push.expiresAt;
}

/** A lifetime as `expire_after_days` reports it: whole days, rounded up (a 15-minute push says 1). */
export const daysOf = (lifetimeMs: number): number => Math.ceil(lifetimeMs / DAY_MS);

/**
 * `expire_after_duration`, the reference's choices of lifetime, as its official CLI (pwpush-cli
 * 0.16+) sends them instead of `expire_after_days`: 6..17 are whole days; 0..5, the paid
 * edition's lifetimes under a day, are exact (PWP__ALLOW_SUBDAY_EXPIRY can turn them off).
 */
export const LIFETIME_BY_DURATION: ReadonlyMap<number, number> = new Map([
  [0, 15 * MINUTE_MS], [1, 30 * MINUTE_MS], [2, 45 * MINUTE_MS], [3, HOUR_MS], [4, 6 * HOUR_MS], [5, 12 * HOUR_MS],
  [6, DAY_MS], [7, 2 * DAY_MS], [8, 3 * DAY_MS], [9, 4 * DAY_MS], [10, 5 * DAY_MS], [11, 6 * DAY_MS], [12, 7 * DAY_MS],
  [13, 14 * DAY_MS], [14, 21 * DAY_MS], [15, 30 * DAY_MS], [16, 60 * DAY_MS], [17, 90 * DAY_MS],
]);

/** "0 = 15 minutes, 1 = 30 minutes, ..., 17 = 90 days" (from 6 on when `subday` is false), for messages and the OpenAPI document. */
export function describeDurations(subday = true): string {
  return [...LIFETIME_BY_DURATION]
    .filter(([, lifetime]) => subday || lifetime >= DAY_MS)
    .map(([duration, lifetime]) => `${duration} = ${describeLifetime(lifetime)}`)
    .join(', ');
}

/** "15 minutes", "1 hour", "7 days". */
export function describeLifetime(lifetimeMs: number): string {
  const [amount, unit] = lifetimeMs >= DAY_MS ? [lifetimeMs / DAY_MS, 'day'] : lifetimeMs >= HOUR_MS ? [lifetimeMs / HOUR_MS, 'hour'] : [lifetimeMs / MINUTE_MS, 'minute'];
  return `${amount} ${unit}${amount === 1 ? '' : 's'}`;
}
