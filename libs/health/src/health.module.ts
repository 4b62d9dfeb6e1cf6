import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { HealthController } from './health.controller';
import { HealthService } from './health.service';

// Terminus would log every failed probe (every few seconds during an outage); HealthService
// logs only the transitions.
@Module({ imports: [TerminusModule.forRoot({ logger: false })], controllers: [HealthController], providers: [HealthService] })
export class HealthModule {}
