import { Injectable } from '@nestjs/common';
import { Clock } from '@app/common';
import { RedisConnection } from '@app/redis';

const WINDOW_MS = 60_000;
const PRUNE_ABOVE = 10_000;

/** Counts a failure; the first failure of a window starts the window's expiry. Atomic in Redis. */
const RECORD_FAILURE = `
local failures = redis.call('INCR', KEYS[1])
if failures == 1 or redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return failures`;

/**
 * Takes an attempt: counts it as a failure before it is tried (so that concurrent attempts cannot
 * all see the count below the limit), and says how long the window still runs when the count is
 * now over the limit (0: go ahead). ARGV: window ms, limit.
 */
const TAKE_ATTEMPT = `
local failures = redis.call('INCR', KEYS[1])
if failures == 1 or redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
if failures > tonumber(ARGV[2]) then return math.max(redis.call('PTTL', KEYS[1]), 1) end
return 0`;

/** Gives a taken attempt back (it succeeded); never revives a window that has closed. */
const GIVE_BACK = `if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('DECR', KEYS[1]) end
return 1`;

/** Failures so far and milliseconds until the window closes. */
const READ_WINDOW = `return { tonumber(redis.call('GET', KEYS[1]) or '0'), redis.call('PTTL', KEYS[1]) }`;

/**
 * Failed attempts per key (a push's passphrase, a sign-in) in a one-minute window. With Redis
 * configured the window lives there, so every replica sees the same count; otherwise, and
 * whenever Redis does not answer, in process memory (a Redis outage weakens the lockout to
 * per-process, never breaks the requests).
 */
@Injectable()
export class FailedAttempts {
  private readonly windows = new Map<string, { failures: number; resetsAt: number }>();

  constructor(
    private readonly clock: Clock,
    private readonly redis: RedisConnection,
  ) {}

  /** Seconds until attempts are allowed again, or 0 when they are allowed now. */
  async blockedFor(key: string, limit: number): Promise<number> {
    const shared = await this.readShared(key);
    if (shared) return shared.failures >= limit && shared.ttlMs > 0 ? Math.ceil(shared.ttlMs / 1000) : 0;
    const window = this.current(key);
    return window && window.failures >= limit ? Math.ceil((window.resetsAt - this.clock.now()) / 1000) : 0;
  }

  async recordFailure(key: string): Promise<void> {
    if (await this.recordShared(key)) return;
    const window = this.current(key) ?? { failures: 0, resetsAt: this.clock.now() + WINDOW_MS };
    window.failures += 1;
    this.windows.set(key, window);
    if (this.windows.size > PRUNE_ABOVE) this.prune();
  }

  /**
   * An attempt that must not outrun the limit (a passphrase guess): counted as a failure at once,
   * atomically, then tried; `giveBack` when it succeeded, so that right attempts never count. Of
   * any number of concurrent attempts, at most `limit` are tried per window. Returns seconds until
   * attempts are allowed again, or 0 when this one may be tried now.
   */
  async take(key: string, limit: number): Promise<number> {
    const shared = await this.takeShared(key, limit);
    if (shared !== undefined) return shared > 0 ? Math.ceil(shared / 1000) : 0;
    const window = this.current(key) ?? { failures: 0, resetsAt: this.clock.now() + WINDOW_MS };
    window.failures += 1;
    this.windows.set(key, window);
    if (this.windows.size > PRUNE_ABOVE) this.prune();
    return window.failures > limit ? Math.max(1, Math.ceil((window.resetsAt - this.clock.now()) / 1000)) : 0;
  }

  /** An attempt taken with `take` that succeeded: it does not count. */
  async giveBack(key: string): Promise<void> {
    if (await this.giveBackShared(key)) return;
    const window = this.current(key);
    if (window && window.failures > 0) window.failures -= 1;
  }

  private async takeShared(key: string, limit: number): Promise<number | undefined> {
    if (!this.redis.ready) return undefined;
    try {
      return Number(await this.redis.client!.eval(TAKE_ATTEMPT, 1, `attempts:${key}`, WINDOW_MS, limit));
    } catch {
      return undefined;
    }
  }

  private async giveBackShared(key: string): Promise<boolean> {
    if (!this.redis.ready) return false;
    try {
      await this.redis.client!.eval(GIVE_BACK, 1, `attempts:${key}`);
      return true;
    } catch {
      return false;
    }
  }

  private async readShared(key: string): Promise<{ failures: number; ttlMs: number } | undefined> {
    if (!this.redis.ready) return undefined;
    try {
      const [failures, ttlMs] = (await this.redis.client!.eval(READ_WINDOW, 1, `attempts:${key}`)) as [number, number];
      return { failures, ttlMs };
    } catch {
      return undefined;
    }
  }

  private async recordShared(key: string): Promise<boolean> {
    if (!this.redis.ready) return false;
    try {
      await this.redis.client!.eval(RECORD_FAILURE, 1, `attempts:${key}`, WINDOW_MS);
      return true;
    } catch {
      return false;
    }
  }

  private prune(): void {
    const now = this.clock.now();
    for (const [key, window] of this.windows) if (window.resetsAt <= now) this.windows.delete(key);
  }

  private current(key: string): { failures: number; resetsAt: number } | undefined {
    const window = this.windows.get(key);
    if (window && window.resetsAt <= this.clock.now()) {
      this.windows.delete(key);
      return undefined;
    }
    return window;
  }
}
