import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { HOUR_MS, scheduleExclusive } from '@app/common';
import { InjectSettings, Settings } from '@app/config';
import { NotificationWorker } from './notification-worker';

/** The worker's timetable only: a poll every PWP__NOTIFICATIONS__POLL_SECONDS (attempts go on between polls), the delivered history cleaned hourly. */
@Injectable()
export class NotificationWorkerScheduler implements OnApplicationBootstrap {
  private readonly logger = new Logger('Notifications');

  constructor(
    private readonly worker: NotificationWorker,
    private readonly registry: SchedulerRegistry,
    @InjectSettings() private readonly settings: Settings,
  ) {}

  onApplicationBootstrap(): void {
    const { workerEnabled, pollIntervalMs } = this.settings.notifications;
    if (!workerEnabled) return;
    scheduleExclusive(this.registry, 'Notifications round', pollIntervalMs, this.logger, () => this.worker.poll());
    scheduleExclusive(this.registry, 'Notifications history clean-up', HOUR_MS, this.logger, () => this.worker.cleanUp());
  }
}
