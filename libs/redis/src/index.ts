/**
 * Redis, when REDIS_URL is set: one connection per process, namespaced by REDIS_KEY_PREFIX, that
 * fails fast (never queues commands while disconnected) so callers can fall back to process memory.
 */
export * from './redis.module';
export { RedisConnection } from './redis-connection';
