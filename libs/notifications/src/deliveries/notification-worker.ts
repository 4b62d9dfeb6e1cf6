import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { setTimeout as delay } from 'node:timers/promises';
import { Clock, DAY_MS, errorCode, HOUR_MS } from '@app/common';
import { InjectSettings, Settings } from '@app/config';
import { Metrics } from '@app/metrics';
import { subscribes } from '../webhooks/event-bits';
import { AttemptResult, channelOf, Channels } from './channels';
import { endpointsInTurn, inTurn } from './claim-order';
import { BusyEndpoint, DeliveriesRepository, Destination, DueDelivery, Lane, LANES, UndispatchedEvent } from './deliveries.repository';
import { DeliverySlots } from './delivery-slots';
import { EndpointHealth, EndpointVerdict } from './endpoint-health';

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
/** Dispatching goes on while full batches keep coming, for at most this long a poll. */
const DISPATCH_BUDGET_MS = 10_000;
const MAX_BACKOFF_MS = HOUR_MS;
/** Delivered notifications are kept this long (or PWP__PURGE_AFTER, if shorter, but at least a day: the daily mail limit counts them). */
const HISTORY_MS = 7 * DAY_MS;
const DISPATCH_BATCH = 100;
const HISTORY_BATCH = 1000;
/** The lane of mails to people (link mails, account mails): one SMTP server, each link mail mailing its recipients in turn; half of it at most for one user. */
const MAIL_SLOTS = 4;
/**
 * How many candidates a claim query reads per cap (per endpoint, per user, per lane), so that the
 * slots freed by the next attempts are filled from them without another query. A long backlog
 * costs one query per so many attempts.
 */
const LOOKAHEAD = 10;
/**
 * Candidates, and the list of endpoints with pending deliveries, read longer ago are read again:
 * a new event's endpoint, a rotated secret or a new opt-in reach the next attempts within this
 * (each poll reads both afresh too).
 */
const CANDIDATES_MAX_AGE_MS = 1000;
/** How long shutdown waits for attempts in flight to record their outcome; the others are due again when their lease lapses. */
const SHUTDOWN_GRACE_MS = 5000;

/**
 * Drains the outbox: makes each event's deliveries (one per subscribed endpoint of its owner, or
 * the link mail), then attempts the due ones, retrying failures with exponential backoff and
 * jitter until PWP__NOTIFICATIONS__RETRY_FOR_SECONDS after the event, when they are dead.
 *
 * Attempts run side by side and never wait for each other: each holds a slot of its lane
 * (DeliverySlots: so many in all, per endpoint and per user, in this process) and the slot it
 * frees is claimed again at once. Claims take users in turn (DeliveriesRepository.due), so a
 * user whose endpoints never answer holds a few slots and the rest serve everyone else; webhook
 * endpoints that keep failing are paused, then disabled (EndpointHealth).
 *
 * Every replica runs it; the repository's claims make each step happen once. At least once: a
 * replica that dies mid-attempt leaves its claim to lapse, and the delivery is attempted again.
 */
@Injectable()
export class NotificationWorker implements BeforeApplicationShutdown {
  private readonly logger = new Logger('Notifications');
  /** How long an attempt holds its delivery (leaseOf). */
  private readonly leaseMs: number;
  private readonly slots: DeliverySlots;
  private readonly running = new Set<Promise<void>>();
  /**
   * Each lane's candidates from its last read, in claiming order, when they were read, and whether
   * that read left out nothing due (no endpoint skipped for want of room, no limit reached).
   */
  private readonly candidates = new Map<Lane, { readAt: number; deliveries: DueDelivery[]; complete: boolean }>();
  /** The endpoints with pending deliveries, as last read. */
  private busy: { readAt: number; endpoints: BusyEndpoint[] } | undefined;
  /** The claiming under way (one at a time, so the caps are counted right), and whether it should look again. */
  private filling: Promise<void> | undefined;
  private fillAgain = false;
  private stopped = false;
  /** Everything done since start, for round() to tell its share. */
  private readonly done: WorkerRound = { dispatched: 0, delivered: 0, retried: 0, dead: 0 };

  constructor(
    private readonly repository: DeliveriesRepository,
    private readonly channels: Channels,
    private readonly health: EndpointHealth,
    private readonly clock: Clock,
    private readonly metrics: Metrics,
    @InjectSettings() private readonly settings: Settings,
  ) {
    metrics.watchNotificationQueue(() => this.repository.queue(this.clock.now()));
    this.leaseMs = leaseOf(settings);
    const { batchSize, perEndpoint, perUser } = settings.notifications;
    this.slots = new DeliverySlots({
      endpoints: { total: batchSize, perEndpoint, perUser },
      mails: { total: MAIL_SLOTS, perEndpoint: 1, perUser: MAIL_SLOTS / 2 },
    });
  }

  /**
   * A tick of the timetable: dispatches what waits in the outbox, then fills the free slots from
   * a fresh look at the queue. Returns without waiting for the attempts it starts.
   */
  async poll(): Promise<void> {
    if (this.stopped) return;
    await this.dispatch();
    await this.fillAfresh();
  }

  /**
   * A poll, then everything it leads to: waits until no attempt is in flight and nothing due is
   * left to claim, and tells what was done. For tests and one-off runs; the server polls.
   */
  async round(): Promise<WorkerRound> {
    const before = { ...this.done };
    await this.poll();
    await this.idle();
    return { dispatched: this.done.dispatched - before.dispatched, delivered: this.done.delivered - before.delivered, retried: this.done.retried - before.retried, dead: this.done.dead - before.dead };
  }

  /** No new claims; the attempts in flight get a moment to record their outcome while the database is still open. */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    await Promise.race([this.idle(), delay(SHUTDOWN_GRACE_MS, undefined, { ref: false })]);
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

  /** Dispatches while full batches keep coming (within DISPATCH_BUDGET_MS); each full batch's deliveries are claimed while the next is dispatched. */
  private async dispatch(): Promise<void> {
    const started = performance.now();
    for (let batch = DISPATCH_BATCH; batch === DISPATCH_BATCH && performance.now() - started < DISPATCH_BUDGET_MS; ) {
      const events = await this.repository.undispatched(DISPATCH_BATCH);
      for (const event of events) {
        if (await this.repository.dispatch(event, await this.destinationsOf(event), this.clock.now())) this.done.dispatched++;
      }
      batch = events.length;
      if (batch === DISPATCH_BATCH) void this.fillAfresh().catch((error: unknown) => this.logger.error(`Notifications claim failed: ${describeError(error)}`));
    }
  }

  /** Fills the free slots from a fresh look at the queue: what was just dispatched, or became due, included. */
  private fillAfresh(): Promise<void> {
    this.candidates.clear();
    this.busy = undefined;
    return this.fill();
  }

  private async destinationsOf(event: UndispatchedEvent): Promise<Destination[]> {
    const now = this.clock.now();
    // A link mail goes to the recipients its payload names, an account mail to its person: neither to an endpoint.
    if (event.type === 'push.link_mail' || event.type === 'account.mail') return [{ webhookId: null, remaining: null, dueAt: now }];
    const webhooks = await this.repository.webhooksOf(event.userId);
    return webhooks
      .filter((webhook) => subscribes(webhook.events, event.type))
      .map((webhook) => ({ webhookId: webhook.id, remaining: null, dueAt: Math.max(now, webhook.pausedUntil ?? 0) }));
  }

  /** Claims into every free slot, one claiming at a time; a call during one makes it look again when done. */
  private fill(): Promise<void> {
    this.fillAgain = true;
    this.filling ??= (async () => {
      while (this.fillAgain && !this.stopped) {
        this.fillAgain = false;
        for (const lane of LANES) await this.fillLane(lane);
      }
    })().finally(() => (this.filling = undefined));
    return this.filling;
  }

  /**
   * Claims the lane's candidates that fit its caps, in their order, while slots are free. They
   * come from the last read while it is fresh and either some of them fit or it left nothing out
   * (then nothing else was due); else from a new read, and from one too when none of the old
   * could be claimed (taken elsewhere, or held back since). So a slot that frees costs a query
   * only every so many attempts, and none while nothing is due.
   */
  private async fillLane(lane: Lane): Promise<void> {
    if (this.slots.free(lane) <= 0) return;
    const cached = this.candidates.get(lane);
    const fresh = cached !== undefined && this.clock.now() - cached.readAt <= CANDIDATES_MAX_AGE_MS;
    const fitting = fresh && cached.deliveries.some((candidate) => this.slots.fits(lane, candidate));
    if (fresh && !fitting && cached.complete && cached.deliveries.length === 0) return;
    const claimed = await this.claimFrom(lane, fitting ? cached.deliveries : await this.readCandidates(lane));
    if (fitting && claimed === 0 && this.slots.free(lane) > 0) await this.claimFrom(lane, await this.readCandidates(lane));
  }

  private async readCandidates(lane: Lane): Promise<DueDelivery[]> {
    const now = this.clock.now();
    const { total, perUser } = this.slots.capsOf(lane);
    const limit = total * LOOKAHEAD;
    const read = lane === 'mails' ? await this.dueMails(now, perUser * LOOKAHEAD, limit) : await this.dueToEndpoints(now);
    this.candidates.set(lane, { readAt: now, ...read });
    return read.deliveries;
  }

  private async dueMails(now: number, perUser: number, limit: number): Promise<{ deliveries: DueDelivery[]; complete: boolean }> {
    const deliveries = await this.repository.dueMails(now, perUser, limit);
    return { deliveries, complete: deliveries.length < limit };
  }

  /**
   * The first due deliveries of the endpoints that have room, taken in turn (claim-order.ts), each
   * endpoint's read along its index: a query per endpoint served, however long anyone's backlog.
   * Enough endpoints to fill the free slots, each giving up to its cap.
   */
  private async dueToEndpoints(now: number): Promise<{ deliveries: DueDelivery[]; complete: boolean }> {
    if (!this.busy || now - this.busy.readAt > CANDIDATES_MAX_AGE_MS) this.busy = { readAt: now, endpoints: await this.repository.busyEndpoints() };
    const { perEndpoint } = this.slots.capsOf('endpoints');
    const lists: DueDelivery[][] = [];
    let room = this.slots.free('endpoints');
    let complete = true;
    for (const { webhookId, userId } of endpointsInTurn(this.busy.endpoints, now)) {
      if (room <= 0 || !this.slots.fits('endpoints', { userId, webhook: { id: webhookId } })) {
        complete = false;
        continue;
      }
      const due = await this.repository.dueTo(webhookId, now, perEndpoint * LOOKAHEAD);
      if (due.length === perEndpoint * LOOKAHEAD) complete = false;
      lists.push(due);
      room -= Math.min(due.length, perEndpoint);
    }
    return { deliveries: inTurn(lists), complete };
  }

  /** Claims those of the candidates that fit; keeps the others for later. Returns how many it claimed. */
  private async claimFrom(lane: Lane, candidates: DueDelivery[]): Promise<number> {
    const kept: DueDelivery[] = [];
    let claimed = 0;
    for (const candidate of candidates) {
      if (this.stopped || !this.slots.fits(lane, candidate)) {
        kept.push(candidate);
        continue;
      }
      const now = this.clock.now();
      // Lost to another replica, or held back since it was read (its endpoint paused): dropped either way.
      if (await this.repository.claim(candidate, now, now + this.leaseMs)) {
        this.start(lane, { ...candidate, attempts: candidate.attempts + 1 });
        claimed++;
      }
    }
    candidates.splice(0, candidates.length, ...kept);
    return claimed;
  }

  /** Runs the attempt in its slot; the slot it frees is claimed again at once. */
  private start(lane: Lane, delivery: DueDelivery): void {
    this.slots.take(lane, delivery);
    const running: Promise<void> = this.attempt(delivery)
      .catch((error: unknown) => this.logger.error(`Notification attempt not recorded: ${describeError(error)}`))
      .finally(() => {
        this.slots.release(lane, delivery);
        this.running.delete(running);
        if (!this.stopped) void this.fill().catch((error: unknown) => this.logger.error(`Notifications claim failed: ${describeError(error)}`));
      });
    this.running.add(running);
  }

  /** Until no attempt is in flight and no claiming under way (the attempts' ends start new claims). */
  private async idle(): Promise<void> {
    while (this.running.size > 0 || this.filling) {
      await Promise.race([...this.running, ...(this.filling ? [this.filling.catch(() => undefined)] : [])]);
    }
  }

  private async attempt(delivery: DueDelivery): Promise<void> {
    const channel = channelOf(delivery);
    const result: AttemptResult = await this.channels.attempt(delivery, this.clock.now()).catch((error: unknown) => ({
      ok: false,
      error: `unexpected failure (${error instanceof Error ? error.name : 'error'})`,
    }));
    const now = this.clock.now();
    const endpoint = channel === 'webhook' ? await this.endpointAfter(delivery, result, now) : undefined;
    const retryAt = Math.max(now + this.backoff(delivery.attempts), endpoint?.pausedUntil ?? 0);
    const given = result.final || endpoint?.disabled !== undefined || retryAt - delivery.eventAt > this.settings.notifications.retryForMs;
    const status = result.ok ? 'delivered' : given ? 'dead' : 'pending';
    if (endpoint?.disabled !== undefined) this.done.dead += endpoint.givenUp;
    const recorded = await this.repository.finish(
      delivery,
      {
        status,
        nextAttemptAt: status === 'pending' ? retryAt : now,
        lastStatusCode: result.statusCode ?? null,
        lastError: result.ok ? null : (endpoint?.disabled ?? result.error ?? 'failed'),
        remaining: result.remaining ?? delivery.remaining,
      },
      now,
    );
    // Not ours any more: retaken after a lapsed lease (that attempt reports it), or given up with its endpoint (counted then).
    if (!recorded) return;
    if (status === 'dead' && channel === 'link_email') await this.channels.linkEmailDead({ ...delivery, remaining: result.remaining ?? delivery.remaining }, now);
    this.metrics.notification(channel, status === 'delivered' ? 'sent' : status === 'pending' ? 'retried' : 'failed');
    this.done[status === 'delivered' ? 'delivered' : status === 'pending' ? 'retried' : 'dead']++;
    if (status === 'dead') {
      const to = delivery.webhook ? `endpoint ${delivery.webhook.publicId}` : 'its recipients';
      const why = `${result.error ?? 'failed'}${result.detail ? ` (${result.detail})` : ''}`;
      this.logger.warn(`Notification ${delivery.eventType} to ${to} given up after ${delivery.attempts} attempt(s): ${why}`);
    }
  }

  /** A webhook's endpoint after the attempt: healthy again, or paused or disabled by its failure. */
  private async endpointAfter(delivery: DueDelivery, result: AttemptResult, now: number): Promise<EndpointVerdict | undefined> {
    if (!result.ok) return this.health.failed(delivery, result.error ?? 'failed', now);
    await this.health.succeeded(delivery);
    return undefined;
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

/** An error's type and code only: driver messages can quote SQL parameters. */
function describeError(error: unknown): string {
  const code = errorCode(error);
  return `${error instanceof Error ? error.name : 'error'}${code ? ` (${code})` : ''}`;
}
