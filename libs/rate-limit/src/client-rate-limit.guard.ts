import { ExecutionContext, Injectable } from '@nestjs/common';
import { ThrottlerGuard, type ThrottlerLimitDetail } from '@nestjs/throttler';
import { createHash } from 'node:crypto';
import { TooManyRequestsError } from '@app/common';

/** What a bare @SkipThrottle() records (for a throttler named "default"). */
const SKIP_ALL = 'THROTTLER:SKIP' + 'default';

/**
 * The stock guard keys its counters by controller and handler, giving each route its own budget;
 * the reference product limits a client as a whole, so the key here is the client alone. The
 * client is `request.ip` (the stock tracker), i.e. X-Forwarded-For only from trusted proxies,
 * the same address the audit log records; IPv6 clients count per /64. Hashed, so Redis holds no
 * addresses.
 */
@Injectable()
export class ClientRateLimitGuard extends ThrottlerGuard {
  /** A bare @SkipThrottle() exempts the route from every window, whatever the throttlers are named. */
  protected override async shouldSkip(context: ExecutionContext): Promise<boolean> {
    return this.reflector.getAllAndOverride<boolean | undefined>(SKIP_ALL, [context.getHandler(), context.getClass()]) === true;
  }

  protected override generateKey(_context: ExecutionContext, tracker: string): string {
    return `throttle:${createHash('sha256').update(tracker).digest('base64url').slice(0, 24)}`;
  }

  protected override async throwThrottlingException(_context: ExecutionContext, detail: ThrottlerLimitDetail): Promise<void> {
    throw new TooManyRequestsError('Rate limit exceeded. Try again later.', Math.max(1, detail.timeToBlockExpire));
  }
}
