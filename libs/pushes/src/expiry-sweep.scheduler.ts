import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { scheduleExclusive } from '@app/common';
import { InjectSettings, Settings } from '@app/config';
import { ExpirySweepService } from './expiry-sweep.service';

/** The sweep's timetable only: every EXPIRY_SWEEP_INTERVAL_SECONDS, never two rounds at once in one process. */
@Injectable()
export class ExpirySweepScheduler implements OnApplicationBootstrap {
  private readonly logger = new Logger('ExpirySweep');

  constructor(
    private readonly sweep: ExpirySweepService,
    private readonly registry: SchedulerRegistry,
    @InjectSettings() private readonly settings: Settings,
  ) {}

  onApplicationBootstrap(): void {
    const { enabled, intervalSeconds } = this.settings.expirySweep;
    if (enabled) scheduleExclusive(this.registry, 'Expiry sweep', intervalSeconds * 1000, this.logger, () => this.sweep.sweep());
  }
}
