import { Injectable } from '@nestjs/common';

export const DAY_MS = 24 * 60 * 60 * 1000;

/** The service's notion of "now", in epoch milliseconds; tests substitute a clock they can move. */
@Injectable()
export class Clock {
  now(): number {
    return Date.now();
  }
}
