import { Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import Redis from 'ioredis';
import { InjectSettings, Settings } from '@app/config';

const CONNECT_TIMEOUT_MS = 2000;
const COMMAND_TIMEOUT_MS = 1000;
const MAX_RECONNECT_DELAY_MS = 2000;

/**
 * The process's Redis client, or none. Commands fail at once while the connection is down
 * (no offline queue) and after COMMAND_TIMEOUT_MS when Redis stops answering, so a Redis outage
 * costs a request at most that long; ioredis keeps reconnecting in the background.
 */
@Injectable()
export class RedisConnection implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('Redis');
  /** Undefined when REDIS_URL is not set. */
  readonly client?: Redis;
  private down = false;

  constructor(@InjectSettings() settings: Settings) {
    if (!settings.redis) return;
    this.client = new Redis(settings.redis.url, {
      keyPrefix: settings.redis.keyPrefix,
      connectTimeout: CONNECT_TIMEOUT_MS,
      commandTimeout: COMMAND_TIMEOUT_MS,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: (attempt) => Math.min(attempt * 200, MAX_RECONNECT_DELAY_MS),
    });
    // Logged on state changes only; the message can name the host but never the password.
    this.client.on('error', (error: Error & { code?: string }) => this.markDown(error.code ?? error.name));
    this.client.on('close', () => this.markDown('connection closed'));
    this.client.on('ready', () => {
      if (this.down) this.logger.log('Redis is reachable again; counters are shared again.');
      this.down = false;
    });
  }

  /**
   * Gives the first connection a moment (at most CONNECT_TIMEOUT_MS), so a replica that starts
   * next to a healthy Redis counts there from its first request; never fails start-up.
   */
  async onModuleInit(): Promise<void> {
    const client = this.client;
    if (!client || client.status === 'ready') return;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        client.off('ready', done);
        resolve();
      };
      const timer = setTimeout(done, CONNECT_TIMEOUT_MS);
      client.once('ready', done);
    });
  }

  get configured(): boolean {
    return this.client !== undefined;
  }

  /** Whether a command can be sent right now. */
  get ready(): boolean {
    return this.client?.status === 'ready';
  }

  /** Resolves when Redis answers PING; rejects when it is unreachable or too slow. */
  async ping(): Promise<void> {
    if (!this.client) return;
    await this.client.ping();
  }

  async onApplicationShutdown(): Promise<void> {
    if (!this.client) return;
    this.client.removeAllListeners('close');
    this.client.removeAllListeners('error');
    this.client.on('error', () => undefined);
    if (this.client.status !== 'ready') return this.client.disconnect();
    await this.client.quit().catch(() => this.client?.disconnect());
  }

  private markDown(reason: string): void {
    if (this.down) return;
    this.down = true;
    this.logger.warn(`Redis is unreachable (${reason}); rate limits and passphrase attempts are counted per process until it is back.`);
  }
}
