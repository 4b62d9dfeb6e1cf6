import { DynamicModule, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ThrottlerModule, ThrottlerOptions } from '@nestjs/throttler';
import type { Settings } from '@app/config';
import { RedisConnection } from '@app/redis';
import { ClientRateLimitGuard } from './client-rate-limit.guard';
import { SharedThrottlerStorage } from './shared-throttler-storage';

@Module({})
export class RateLimitModule {
  static forRoot(settings: Settings): DynamicModule {
    const { perSecond, perMinute } = settings.throttling;
    const throttlers: ThrottlerOptions[] = [];
    if (perSecond > 0) throttlers.push({ name: 'second', ttl: 1000, limit: perSecond });
    if (perMinute > 0) throttlers.push({ name: 'minute', ttl: 60_000, limit: perMinute });
    if (throttlers.length === 0) return { module: RateLimitModule };
    return {
      module: RateLimitModule,
      imports: [
        ThrottlerModule.forRootAsync({
          inject: [RedisConnection],
          useFactory: (redis: RedisConnection) => ({ throttlers, storage: new SharedThrottlerStorage(redis), setHeaders: false }),
        }),
      ],
      providers: [{ provide: APP_GUARD, useClass: ClientRateLimitGuard }],
    };
  }
}
