import { Injectable, Logger } from '@nestjs/common';
import { HOUR_MS } from '@app/common';
import { InjectSettings, Settings } from '@app/config';
import { Metrics } from '@app/metrics';
import { DeliveriesRepository, DueDelivery } from './deliveries.repository';

/**
 * What a failure did to the endpoint: paused it (its deliveries wait until then), or found it
 * disabled (why; and how many pending deliveries this failure gave up, when it disabled it).
 */
export type EndpointVerdict = { pausedUntil: number; disabled?: undefined } | { disabled: string; givenUp: number; pausedUntil?: undefined };

/** Its pause grows as a delivery's retries do (PWP__NOTIFICATIONS__BACKOFF_SECONDS, doubling), up to an hour. */
const MAX_PAUSE_MS = HOUR_MS;
/** Compare-and-set rounds lost to other attempts failing at the same time, before leaving the count to them. */
const MAX_TRIES = 3;

/**
 * A webhook endpoint's health, kept in its row so every replica sees it. Each failure pauses the
 * whole endpoint (its pending deliveries wait, new ones start waiting), from the first retry's
 * delay and doubling; the attempts failing during one pause (those already in flight, in any
 * replica) count as one failure. After PWP__NOTIFICATIONS__DISABLE_AFTER_FAILURES in a row the
 * endpoint is disabled and its pending deliveries are given up; a success resets the count. So
 * a receiver that never answers costs at most a few attempts per pause, not one per event.
 */
@Injectable()
export class EndpointHealth {
  private readonly logger = new Logger('Notifications');

  constructor(
    private readonly repository: DeliveriesRepository,
    private readonly metrics: Metrics,
    @InjectSettings() private readonly settings: Settings,
  ) {}

  async succeeded(delivery: DueDelivery): Promise<void> {
    if (delivery.webhook && delivery.webhook.consecutiveFailures > 0) await this.repository.endpointHealthy(delivery.webhook.id);
  }

  /** Counts the failure of an attempt to `delivery`'s endpoint (`error` as its owner reads it). */
  async failed(delivery: DueDelivery, error: string, now: number): Promise<EndpointVerdict> {
    const { id, publicId } = delivery.webhook!;
    const { disableAfterFailures, backoffMs } = this.settings.notifications;
    for (let tries = 0; tries < MAX_TRIES; tries++) {
      const health = await this.repository.endpointHealth(id);
      if (health === null) return { pausedUntil: now }; // deleted meanwhile: its deliveries went with it
      if (health.disabledAt !== null) return { disabled: health.disabledReason ?? 'endpoint disabled', givenUp: 0 };
      if (health.pausedUntil !== null && health.pausedUntil > now) return { pausedUntil: health.pausedUntil };
      const failures = health.consecutiveFailures + 1;
      if (failures >= disableAfterFailures) {
        const reason = `endpoint disabled after ${failures} failures in a row; the last: ${error}`.slice(0, 255);
        const givenUp = await this.repository.disableEndpoint(id, health.consecutiveFailures, reason, delivery.id, now);
        if (givenUp === null) continue;
        this.metrics.webhookEndpointDisabled(givenUp);
        this.logger.warn(`Webhook endpoint ${publicId} disabled after ${failures} failures in a row; ${givenUp} pending deliveries given up`);
        return { disabled: reason, givenUp };
      }
      const pausedUntil = now + Math.min(MAX_PAUSE_MS, backoffMs * 2 ** Math.min(failures - 1, 20));
      if (await this.repository.pauseEndpoint(id, health.consecutiveFailures, pausedUntil)) return { pausedUntil };
    }
    return { pausedUntil: now };
  }
}
