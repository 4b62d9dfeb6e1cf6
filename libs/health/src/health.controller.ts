import { Controller, Get, Header } from '@nestjs/common';
import { SkipThrottle } from '@nestjs/throttler';
import { Public } from '@app/auth';
import { HealthService, Liveness, Readiness } from './health.service';

@Public()
@SkipThrottle()
@Controller()
export class HealthController {
  constructor(private readonly health: HealthService) {}

  @Get('healthz')
  @Header('Cache-Control', 'no-store')
  live(): Liveness {
    return this.health.live();
  }

  @Get('readyz')
  @Header('Cache-Control', 'no-store')
  ready(): Promise<Readiness> {
    return this.health.ready();
  }
}
