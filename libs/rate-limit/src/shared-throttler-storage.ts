import { Logger } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';
import { ThrottlerStorageRedisService } from '@nest-lab/throttler-storage-redis';
import type { RedisConnection } from '@app/redis';
import { MemoryThrottlerStorage } from './memory-throttler-storage';

type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

/**
 * Request counters in Redis when it is configured and answering, else in process memory. A Redis
 * outage therefore turns the shared limit into a per-process one for its duration (readiness
 * reports it) rather than failing or slowing requests. Both count in fixed windows with the same
 * answers (see MemoryThrottlerStorage).
 */
export class SharedThrottlerStorage implements ThrottlerStorage {
  private readonly logger = new Logger('RateLimit');
  private readonly memory = new MemoryThrottlerStorage();
  private readonly shared?: ThrottlerStorageRedisService;

  constructor(private readonly redis: RedisConnection) {
    if (redis.client) this.shared = new ThrottlerStorageRedisService(redis.client);
  }

  async increment(key: string, ttl: number, limit: number, blockDuration: number, throttlerName: string): Promise<ThrottlerStorageRecord> {
    if (this.shared && this.redis.ready) {
      try {
        return await this.shared.increment(key, ttl, limit, blockDuration, throttlerName);
      } catch (error) {
        this.logger.debug(`Counting in memory: Redis did not answer (${error instanceof Error ? error.name : 'error'}).`);
      }
    }
    return this.memory.increment(key, ttl, limit, blockDuration, throttlerName);
  }
}
