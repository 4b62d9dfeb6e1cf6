import { Module } from '@nestjs/common';
import { RedisModule } from '@app/redis';
import { FailedAttempts } from './failed-attempts';

@Module({
  imports: [RedisModule],
  providers: [FailedAttempts],
  exports: [FailedAttempts],
})
export class FailedAttemptsModule {}
