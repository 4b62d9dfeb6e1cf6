import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { errorCode, HOUR_MS } from '@app/common';
import { InjectSettings, Settings } from '@app/config';
import { NotificationWorker } from './notification-worker';

/** The worker's timetable only: a round every PWP__NOTIFICATIONS__POLL_SECONDS (never two at once in one process), history cleaned hourly. */
@Injectable()
export class NotificationWorkerScheduler implements OnApplicationBootstrap {
  private readonly logger = new Logger('Notifications');
  private running = false;

  constructor(
    private readonly worker: NotificationWorker,
    private readonly registry: SchedulerRegistry,
    @InjectSettings() private readonly settings: Settings,
  ) {}

  onApplicationBootstrap(): void {
    const { workerEnabled, pollIntervalMs } = this.settings.notifications;
    if (!workerEnabled) return;
    this.registry.addInterval('notifications', setInterval(() => void this.run('round', () => this.worker.round()), pollIntervalMs));
    this.registry.addInterval('notifications-history', setInterval(() => void this.run('clean-up', () => this.worker.cleanUp()), HOUR_MS));
  }

  private async run(what: string, work: () => Promise<unknown>): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      await work();
    } catch (error) {
      // A failed round (database briefly away) is retried at the next tick; claims make that safe.
      const code = errorCode(error);
      this.logger.error(`Notifications ${what} failed: ${error instanceof Error ? error.name : 'error'}${code ? ` (${code})` : ''}`);
    } finally {
      this.running = false;
    }
  }
}
