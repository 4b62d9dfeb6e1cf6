import { ExecutionContext, Injectable } from '@nestjs/common';
import { ThrottlerGuard, type ThrottlerLimitDetail } from '@nestjs/throttler';
import { createHash } from 'node:crypto';
import { TooManyRequestsError } from '@app/common';

/** What a bare @SkipThrottle() records (for a throttler named "default"). */
const SKIP_ALL = 'THROTTLER:SKIP' + 'default';
/** Recent clients' keys kept; past this many the memo starts over (bounded memory under any traffic). */
const KEY_MEMO_SIZE = 10_000;

/**
 * The stock guard keys its counters by controller and handler, giving each route its own budget;
 * the reference product limits a client as a whole, so the key here is the client alone. The
 * client is `request.ip` (the stock tracker), i.e. X-Forwarded-For only from trusted proxies,
 * the same address the audit log records; IPv6 clients count per /64. Hashed, so Redis holds no
 * addresses. Normalising and hashing an address costs more than counting it, so each client's
 * key is worked out once and remembered.
 */
@Injectable()
export class ClientRateLimitGuard extends ThrottlerGuard {
  private readonly keysByAddress = new Map<string, string>();

  /** A bare @SkipThrottle() exempts the route from every window, whatever the throttlers are named. */
  protected override async shouldSkip(context: ExecutionContext): Promise<boolean> {
    return this.reflector.getAllAndOverride<boolean | undefined>(SKIP_ALL, [context.getHandler(), context.getClass()]) === true;
  }

  /** The client's counter key (the stock guard's tracker, normalised, then hashed). */
  protected override async getTracker(request: { ip?: string }): Promise<string> {
    const address = request.ip ?? '';
    let key = this.keysByAddress.get(address);
    if (key === undefined) {
      key = `throttle:${createHash('sha256').update(await super.getTracker(request)).digest('base64url').slice(0, 24)}`;
      if (this.keysByAddress.size >= KEY_MEMO_SIZE) this.keysByAddress.clear();
      this.keysByAddress.set(address, key);
    }
    return key;
  }

  /** The same budget for every route: the key is the client's alone. */
  protected override generateKey(_context: ExecutionContext, clientKey: string): string {
    return clientKey;
  }

  protected override async throwThrottlingException(_context: ExecutionContext, detail: ThrottlerLimitDetail): Promise<void> {
    throw new TooManyRequestsError('Rate limit exceeded. Try again later.', Math.max(1, detail.timeToBlockExpire));
  }
}
