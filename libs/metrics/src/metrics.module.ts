import { Module, OnModuleInit } from '@nestjs/common';
import { Metrics } from './metrics';
import { MetricsController } from './metrics.controller';
import { MetricsTokenGuard } from './metrics-token.guard';

/** The Metrics service, for the libraries that count things (and the CLI, which never serves them). */
@Module({ providers: [Metrics], exports: [Metrics] })
export class MetricsModule {}

/** The server's /metrics endpoint, with the process metrics. */
@Module({ imports: [MetricsModule], controllers: [MetricsController], providers: [MetricsTokenGuard] })
export class MetricsEndpointModule implements OnModuleInit {
  constructor(private readonly metrics: Metrics) {}

  onModuleInit(): void {
    this.metrics.collectProcessMetrics();
  }
}
