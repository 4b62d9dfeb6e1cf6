import { Injectable, Logger } from '@nestjs/common';
import { Clock, DAY_MS, HOUR_MS } from '@app/common';
import { InjectSettings, Settings } from '@app/config';
import { Metrics } from '@app/metrics';
import { subscribes } from '../webhooks/event-bits';
import { channelOf, Channels } from './channels';
import { AttemptOutcome, DeliveriesRepository, Destination, DueDelivery, UndispatchedEvent } from './deliveries.repository';

/** What one round did. */
export interface WorkerRound {
  dispatched: number;
  delivered: number;
  retried: number;
  dead: number;
}

/** How long an attempt holds its delivery: longer than any attempt may take (webhook and SMTP timeouts are far shorter). */
const LEASE_MS = 2 * 60_000;
const MAX_BACKOFF_MS = HOUR_MS;
/** Delivered notifications are kept this long (or PWP__PURGE_AFTER, if shorter, but at least a day: the daily mail limit counts them). */
const HISTORY_MS = 7 * DAY_MS;
const DISPATCH_BATCH = 100;
const HISTORY_BATCH = 1000;

/**
 * Drains the outbox: makes each event's deliveries (one per subscribed endpoint of its owner, or
 * the link mail), then attempts the due ones, retrying failures with exponential backoff and
 * jitter until PWP__NOTIFICATIONS__RETRY_FOR_SECONDS after the event, when they are dead.
 * Every replica runs it; the repository's claims make each step happen once. At least once: a
 * replica that dies mid-attempt leaves its claim to lapse, and the delivery is attempted again.
 */
@Injectable()
export class NotificationWorker {
  private readonly logger = new Logger('Notifications');

  constructor(
    private readonly repository: DeliveriesRepository,
    private readonly channels: Channels,
    private readonly clock: Clock,
    private readonly metrics: Metrics,
    @InjectSettings() private readonly settings: Settings,
  ) {
    metrics.watchNotificationQueue(() => this.repository.queue(this.clock.now()));
  }

  async round(): Promise<WorkerRound> {
    const dispatched = await this.dispatch();
    const now = this.clock.now();
    const due = await this.repository.claimDue(now, now + LEASE_MS, this.settings.notifications.batchSize);
    const outcomes = await Promise.all(due.map((delivery) => this.attempt(delivery)));
    return {
      dispatched,
      delivered: outcomes.filter((status) => status === 'delivered').length,
      retried: outcomes.filter((status) => status === 'pending').length,
      dead: outcomes.filter((status) => status === 'dead').length,
    };
  }

  /** Deletes delivered history past its keeping time; returns how many events went. */
  async cleanUp(): Promise<number> {
    const keep = Math.max(DAY_MS, Math.min(HISTORY_MS, this.settings.purgeAfterMs ?? HISTORY_MS));
    let deleted = 0;
    for (;;) {
      const batch = await this.repository.deleteHistory(this.clock.now() - keep, HISTORY_BATCH);
      deleted += batch;
      if (batch < HISTORY_BATCH) return deleted;
    }
  }

  private async dispatch(): Promise<number> {
    let dispatched = 0;
    for (const event of await this.repository.undispatched(DISPATCH_BATCH)) {
      if (await this.repository.dispatch(event, await this.destinationsOf(event), this.clock.now())) dispatched++;
    }
    return dispatched;
  }

  private async destinationsOf(event: UndispatchedEvent): Promise<Destination[]> {
    if (event.type === 'push.link_mail') return [{ webhookId: null, remaining: null }];
    const webhooks = await this.repository.webhooksOf(event.userId);
    return webhooks.filter((webhook) => subscribes(webhook.events, event.type)).map((webhook) => ({ webhookId: webhook.id, remaining: null }));
  }

  private async attempt(delivery: DueDelivery): Promise<AttemptOutcome['status']> {
    const channel = channelOf(delivery);
    const result = await this.channels.attempt(delivery, this.clock.now()).catch((error: unknown) => ({
      ok: false,
      error: `unexpected failure (${error instanceof Error ? error.name : 'error'})`,
      statusCode: undefined,
      remaining: undefined,
    }));
    const now = this.clock.now();
    const retryAt = now + this.backoff(delivery.attempts);
    const status = result.ok ? 'delivered' : retryAt - delivery.eventAt > this.settings.notifications.retryForMs ? 'dead' : 'pending';
    await this.repository.finish(
      delivery,
      {
        status,
        nextAttemptAt: status === 'pending' ? retryAt : now,
        lastStatusCode: result.statusCode ?? null,
        lastError: result.ok ? null : (result.error ?? 'failed'),
        remaining: result.remaining ?? delivery.remaining,
      },
      now,
    );
    if (status === 'dead' && channel === 'link_email') await this.channels.linkEmailDead({ ...delivery, remaining: result.remaining ?? delivery.remaining }, now);
    this.metrics.notification(channel, status === 'delivered' ? 'sent' : status === 'pending' ? 'retried' : 'failed');
    if (status === 'dead') {
      const to = delivery.webhook ? `endpoint ${delivery.webhook.publicId}` : 'its recipients';
      this.logger.warn(`Notification ${delivery.eventType} to ${to} given up after ${delivery.attempts} attempt(s): ${result.error ?? 'failed'}`);
    }
    return status;
  }

  /** The delay before attempt `attempts + 1`: doubling from PWP__NOTIFICATIONS__BACKOFF_SECONDS up to an hour, with jitter (half to all of it). */
  private backoff(attempts: number): number {
    const ceiling = Math.min(MAX_BACKOFF_MS, this.settings.notifications.backoffMs * 2 ** Math.min(attempts - 1, 20));
    return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
  }
}
