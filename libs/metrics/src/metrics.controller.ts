import { Controller, Get, Header, UseGuards } from '@nestjs/common';
import { SkipThrottle } from '@nestjs/throttler';
import { Public } from '@app/auth';
import { Metrics, METRICS_CONTENT_TYPE } from './metrics';
import { MetricsTokenGuard } from './metrics-token.guard';

// Public: API tokens do not apply here; METRICS_TOKEN does (MetricsTokenGuard).
@Public()
@SkipThrottle()
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: Metrics) {}

  @Get()
  @UseGuards(MetricsTokenGuard)
  @Header('Content-Type', METRICS_CONTENT_TYPE)
  @Header('Cache-Control', 'no-store')
  scrape(): Promise<string> {
    return this.metrics.exposition();
  }
}
