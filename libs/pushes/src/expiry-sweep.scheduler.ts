import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { errorCode } from '@app/common';
import { InjectSettings, Settings } from '@app/config';
import { ExpirySweepService } from './expiry-sweep.service';

/** The sweep's timetable only: every EXPIRY_SWEEP_INTERVAL_SECONDS, never two rounds at once in one process. */
@Injectable()
export class ExpirySweepScheduler implements OnApplicationBootstrap {
  private readonly logger = new Logger('ExpirySweep');
  private running = false;

  constructor(
    private readonly sweep: ExpirySweepService,
    private readonly registry: SchedulerRegistry,
    @InjectSettings() private readonly settings: Settings,
  ) {}

  onApplicationBootstrap(): void {
    const { enabled, intervalSeconds } = this.settings.expirySweep;
    if (!enabled) return;
    this.registry.addInterval('expiry-sweep', setInterval(() => void this.tick(), intervalSeconds * 1000));
  }

  private async tick(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      await this.sweep.sweep();
    } catch (error) {
      // A failed round (database briefly away) is retried at the next tick.
      const code = errorCode(error);
      this.logger.error(`Expiry sweep failed: ${error instanceof Error ? error.name : 'error'}${code ? ` (${code})` : ''}`);
    } finally {
      this.running = false;
    }
  }
}
