import { DynamicModule, Module, OnModuleInit } from '@nestjs/common';
import type { Settings } from '@app/config';
import { Metrics } from './metrics';
import { MetricsController } from './metrics.controller';
import { MetricsServer } from './metrics-server';
import { MetricsToken, MetricsTokenGuard } from './metrics-token.guard';

/** The Metrics service, for the libraries that count things (and the CLI, which never serves them). */
@Module({ providers: [Metrics], exports: [Metrics] })
export class MetricsModule {}

/**
 * The server's /metrics, with the process metrics: on METRICS_PORT when it is set (and then not
 * on PORT, whose /metrics is a 404 like any unknown path), else on PORT.
 */
@Module({})
export class MetricsEndpointModule implements OnModuleInit {
  constructor(private readonly metrics: Metrics) {}

  static forRoot(settings: Pick<Settings, 'metricsPort'>): DynamicModule {
    const ownPort = settings.metricsPort !== undefined;
    return {
      module: MetricsEndpointModule,
      imports: [MetricsModule],
      controllers: ownPort ? [] : [MetricsController],
      providers: [MetricsToken, ...(ownPort ? [MetricsServer] : [MetricsTokenGuard])],
    };
  }

  onModuleInit(): void {
    this.metrics.collectProcessMetrics();
  }
}
