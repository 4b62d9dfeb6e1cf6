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

/** How long an attempt holds its delivery at the least; longer when the timeouts allow a longer attempt (leaseOf). */
const MIN_LEASE_MS = 2 * 60_000;
/** Most recipients of one link mail, each sent to in turn by one attempt. */
const MAX_RECIPIENTS = 5;
/** A round goes on while full batches keep coming, for at most this long, so a backlog drains at the senders' pace. */
const ROUND_BUDGET_MS = 10_000;
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
  /** How long an attempt holds its delivery (leaseOf). */
  private readonly leaseMs: number;

  constructor(
    private readonly repository: DeliveriesRepository,
    private readonly channels: Channels,
    private readonly clock: Clock,
    private readonly metrics: Metrics,
    @InjectSettings() private readonly settings: Settings,
  ) {
    metrics.watchNotificationQueue(() => this.repository.queue(this.clock.now()));
    this.leaseMs = leaseOf(settings);
  }

  /**
   * Dispatches what waits in the outbox, then attempts the due deliveries a batch at a time, both
   * for as long as full batches keep coming (within ROUND_BUDGET_MS): a backlog drains as fast as
   * the receivers answer, not a batch per poll.
   */
  async round(): Promise<WorkerRound> {
    const started = performance.now();
    const within = () => performance.now() - started < ROUND_BUDGET_MS;
    const round: WorkerRound = { dispatched: 0, delivered: 0, retried: 0, dead: 0 };
    for (let dispatched = DISPATCH_BATCH; dispatched === DISPATCH_BATCH && within(); ) {
      dispatched = await this.dispatch();
      round.dispatched += dispatched;
    }
    const { batchSize } = this.settings.notifications;
    for (let claimed = batchSize; claimed === batchSize && within(); ) {
      const now = this.clock.now();
      const due = await this.repository.claimDue(now, now + this.leaseMs, batchSize);
      for (const status of await Promise.all(due.map((delivery) => this.attempt(delivery)))) {
        round[status === 'delivered' ? 'delivered' : status === 'pending' ? 'retried' : 'dead']++;
      }
      claimed = due.length;
    }
    return round;
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
    // A link mail goes to the recipients its payload names, an account mail to its person: neither to an endpoint.
    if (event.type === 'push.link_mail' || event.type === 'account.mail') return [{ webhookId: null, remaining: null }];
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

/**
 * How long an attempt holds its delivery: twice the longest attempt the timeouts allow (a link
 * mail sends to each recipient in turn), so no other replica retakes one still under way; at the
 * least MIN_LEASE_MS.
 */
function leaseOf({ webhooks, mail }: Settings): number {
  const mailMs = mail.smtp ? MAX_RECIPIENTS * (mail.smtp.openTimeoutMs + mail.smtp.readTimeoutMs) : 0;
  return Math.max(MIN_LEASE_MS, 2 * Math.max(webhooks.timeoutMs, mailMs));
}
