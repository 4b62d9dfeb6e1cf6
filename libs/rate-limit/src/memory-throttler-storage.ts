import type { ThrottlerStorage } from '@nestjs/throttler';

type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

/** Times are epoch milliseconds; -Infinity stands for a Redis key that does not exist. */
interface Counter {
  hits: number;
  windowEndsAt: number;
  blockedUntil: number;
}

export interface MemoryThrottlerStorageOptions {
  /** The clock, overridable for tests. */
  now?: () => number;
  /** Expired counters are dropped by a sweep that runs at most this often, on an increment. */
  sweepIntervalMs?: number;
}

const ABSENT = Number.NEGATIVE_INFINITY;

/**
 * A fixed-window counter per throttler and client: what the Redis storage
 * (@nest-lab/throttler-storage-redis) keeps, held in process memory for when Redis is not
 * configured or not answering. The stock in-memory storage keeps a timestamp per request and
 * filters them on every request, so its cost grows with the limit; this one is O(1) in time and
 * memory per client.
 *
 * `increment` follows the Redis script step by step, Redis' own expiry rules included (a key
 * lives until its expiry time inclusive, PTTL reporting 0 at that last millisecond), so a client
 * sees the same answers whichever storage counts it. Notably, as in Redis, requests made while
 * blocked still count in the current window, so a client that keeps hammering is blocked again
 * the moment its block ends.
 */
export class MemoryThrottlerStorage implements ThrottlerStorage {
  private readonly counters = new Map<string, Counter>();
  private readonly now: () => number;
  private readonly sweepIntervalMs: number;
  private nextSweepAt = ABSENT;

  constructor(options: MemoryThrottlerStorageOptions = {}) {
    this.now = options.now ?? Date.now;
    this.sweepIntervalMs = options.sweepIntervalMs ?? 1000;
  }

  /** How many counters are held (expired ones linger until the next sweep). */
  get size(): number {
    return this.counters.size;
  }

  async increment(key: string, ttl: number, limit: number, blockDuration: number, throttlerName: string): Promise<ThrottlerStorageRecord> {
    const now = this.now();
    if (now >= this.nextSweepAt) this.sweep(now);

    const id = `${throttlerName}:${key}`;
    let counter = this.counters.get(id);
    if (!counter) {
      counter = { hits: 0, windowEndsAt: ABSENT, blockedUntil: ABSENT };
      this.counters.set(id, counter);
    }

    // INCR hits; a window starts with the first hit after the previous one expired.
    if (now > counter.windowEndsAt) counter.hits = 0;
    counter.hits += 1;
    let timeToExpire = counter.windowEndsAt - now;
    if (timeToExpire <= 0) {
      counter.windowEndsAt = now + ttl;
      timeToExpire = ttl;
    }

    let isBlocked = now <= counter.blockedUntil;
    let timeToBlockExpire = 0;
    if (isBlocked) {
      timeToBlockExpire = counter.blockedUntil - now;
    } else if (counter.hits > limit) {
      // Redis refuses SET ... PX with a non-positive time, failing the script at this point.
      if (!(blockDuration > 0)) throw new RangeError('blockDuration must be positive');
      counter.blockedUntil = now + blockDuration;
      isBlocked = true;
      timeToBlockExpire = blockDuration;
    }

    // Reached only at a block's last millisecond: the script then lifts it and starts a window.
    if (isBlocked && timeToBlockExpire <= 0) {
      counter.blockedUntil = ABSENT;
      counter.hits = 1;
      counter.windowEndsAt = now + ttl;
      timeToExpire = ttl;
      isBlocked = false;
    }

    return {
      totalHits: counter.hits,
      timeToExpire: Math.ceil(timeToExpire / 1000),
      isBlocked,
      timeToBlockExpire: Math.ceil(timeToBlockExpire / 1000),
    };
  }

  /**
   * Visits every counter, but at most once per interval, and each counter held saw a request
   * within its window or block: the amortised cost per request stays small and bounded.
   */
  private sweep(now: number): void {
    this.nextSweepAt = now + this.sweepIntervalMs;
    for (const [id, counter] of this.counters) {
      if (now > counter.windowEndsAt && now > counter.blockedUntil) this.counters.delete(id);
    }
  }
}
