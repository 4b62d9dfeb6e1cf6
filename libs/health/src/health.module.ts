import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { MetricsModule } from '@app/metrics';
import { HealthController } from './health.controller';
import { HealthService } from './health.service';

// Terminus's indicators only: HealthService composes them and logs the transitions alone.
@Module({ imports: [TerminusModule.forRoot({ logger: false }), MetricsModule], controllers: [HealthController], providers: [HealthService] })
export class HealthModule {}
