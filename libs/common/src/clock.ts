import { Injectable } from '@nestjs/common';

export const MINUTE_MS = 60_000;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;

/** The service's notion of "now", in epoch milliseconds; tests substitute a clock they can move. */
@Injectable()
export class Clock {
  now(): number {
    return Date.now();
  }
}
