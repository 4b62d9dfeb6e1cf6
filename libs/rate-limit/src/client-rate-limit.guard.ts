import { ExecutionContext, Injectable } from '@nestjs/common';
import { ThrottlerGuard } from '@nestjs/throttler';
import { createHash } from 'node:crypto';
import { TooManyRequestsError } from '@app/common';

/** What a bare @SkipThrottle() records (for a throttler named "default"). */
const SKIP_ALL = 'THROTTLER:SKIP' + 'default';
/** Recent clients' keys kept; past this many the memo starts over (bounded memory under any traffic). */
const KEY_MEMO_SIZE = 10_000;

/**
 * Counts each client's requests against the module's throttlers (per second, per minute) in
 * @nestjs/throttler's storage, Redis when configured.
 *
 * The stock guard keys its counters by controller and handler, giving each route its own budget,
 * and resolves per-route overrides through a dozen metadata lookups on every request; the
 * reference product limits a client as a whole, and this service overrides no limit per route,
 * so the key here is the client alone and a bare @SkipThrottle() (read once per route) is the
 * only per-route setting. The client is `request.ip` (the stock tracker), i.e. X-Forwarded-For
 * only from trusted proxies, the same address the audit log records; IPv6 clients count per /64.
 * Hashed, so Redis holds no addresses; worked out once per address and remembered.
 */
@Injectable()
export class ClientRateLimitGuard extends ThrottlerGuard {
  private readonly keysByAddress = new Map<string, string>();
  private readonly skippedRoutes = new Map<object, boolean>();

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.skips(context)) return true;
    const key = await this.clientKey(context.switchToHttp().getRequest());
    for (const { name = 'default', ttl, limit, blockDuration } of this.throttlers) {
      // RateLimitModule configures plain numbers, never the functions the options type also allows.
      const window = ttl as number;
      const counted = await this.storageService.increment(key, window, limit as number, (blockDuration as number | undefined) ?? window, name);
      if (counted.isBlocked) throw new TooManyRequestsError('Rate limit exceeded. Try again later.', Math.max(1, counted.timeToBlockExpire));
    }
    return true;
  }

  private skips(context: ExecutionContext): boolean {
    const handler = context.getHandler();
    let skipped = this.skippedRoutes.get(handler);
    if (skipped === undefined) {
      skipped = this.reflector.getAllAndOverride<boolean | undefined>(SKIP_ALL, [handler, context.getClass()]) === true;
      this.skippedRoutes.set(handler, skipped);
    }
    return skipped;
  }

  private async clientKey(request: { ip?: string }): Promise<string> {
    const address = request.ip ?? '';
    let key = this.keysByAddress.get(address);
    if (key === undefined) {
      key = `throttle:${createHash('sha256').update(await this.getTracker(request)).digest('base64url').slice(0, 24)}`;
      if (this.keysByAddress.size >= KEY_MEMO_SIZE) this.keysByAddress.clear();
      this.keysByAddress.set(address, key);
    }
    return key;
  }
}
