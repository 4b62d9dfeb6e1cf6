import { DAY_MS } from '@app/common';
import { describeLifetime, LIFETIME_BY_DURATION } from '@app/pushes';

/** close_after_duration when none is given: 3 days. */
export const DEFAULT_CLOSE_AFTER_DURATION = 8;

/**
 * How long a request stays open: close_after_duration's choices are the reference's durations
 * (the paid edition's, 0..17: 15 minutes to 90 days), as a push's expire_after_duration; the
 * lifetime is exact.
 */
export function closeAfterLifetime(duration: number): number | undefined {
  return LIFETIME_BY_DURATION.get(duration);
}

/** "0 = 15 minutes, 1 = 30 minutes, ..., 17 = 90 days". */
export function describeCloseAfter(): string {
  return [...LIFETIME_BY_DURATION].map(([duration, lifetime]) => `${duration} = ${describeLifetime(lifetime)}`).join(', ');
}

/** Whole days left until `closeAfterAt`, rounded up; 0 once closed or past it. */
export function daysRemaining(request: { state: string; closeAfterAt: number }, now: number): number {
  return request.state === 'closed' ? 0 : Math.max(Math.ceil((request.closeAfterAt - now) / DAY_MS), 0);
}
