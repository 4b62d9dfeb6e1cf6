import { Controller, Get, Header, UseGuards } from '@nestjs/common';
import { SkipThrottle } from '@nestjs/throttler';
import { Public } from '@app/auth';
import { Metrics } from './metrics';
import { MetricsTokenGuard } from './metrics-token.guard';

/** Prometheus text format 0.0.4, what prom-client's registry produces. */
const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

// Public: API tokens do not apply here; METRICS_TOKEN does (MetricsTokenGuard).
@Public()
@SkipThrottle()
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: Metrics) {}

  @Get()
  @UseGuards(MetricsTokenGuard)
  @Header('Content-Type', CONTENT_TYPE)
  @Header('Cache-Control', 'no-store')
  scrape(): Promise<string> {
    return this.metrics.exposition();
  }
}
