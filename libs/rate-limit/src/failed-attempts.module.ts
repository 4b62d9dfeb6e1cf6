import { Module } from '@nestjs/common';
import { RedisModule } from '@app/redis';
import { FailedAttempts } from './failed-attempts';
import { SignInAttempts } from './sign-in-attempts';

@Module({
  imports: [RedisModule],
  providers: [FailedAttempts, SignInAttempts],
  exports: [FailedAttempts, SignInAttempts],
})
export class FailedAttemptsModule {}
