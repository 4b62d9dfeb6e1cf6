import { Injectable } from '@nestjs/common';
import { Sql, Statement } from '@app/database';
import type { NotificationQueue } from '@app/metrics';
import type { DeliveryStatus } from './delivery.entity';

/** An event of the outbox not yet made into deliveries. */
export interface UndispatchedEvent {
  id: number;
  type: string;
  userId: number;
}

/** One destination of an event: an endpoint, or (null) the recipients of a link mail; due when the endpoint's pause ends. */
export interface Destination {
  webhookId: number | null;
  remaining: string[] | null;
  dueAt: number;
}

/**
 * Deliveries are claimed in two lanes with slots of their own, so that mails to people (a push's
 * link to the recipients its owner named, account mails), sent through the operator's SMTP, never
 * wait behind endpoints' webhooks and owner mails, whose receivers any user chooses.
 */
export type Lane = 'endpoints' | 'mails';
export const LANES: readonly Lane[] = ['endpoints', 'mails'];

/** The endpoint a delivery goes to, with what its attempt needs. */
export interface DueEndpoint {
  id: number;
  publicId: string;
  url: string;
  secret: Buffer;
  includeUrlToken: boolean;
  /** As the claim read it: a success resets it when it is not 0. */
  consecutiveFailures: number;
  /** Its owner's preferred language: a `mailto:` endpoint's mails are written in it. */
  ownerLanguage: string | null;
}

/** A due delivery with what its attempt needs: the event, its owner, and the endpoint when it has one. */
export interface DueDelivery {
  id: number;
  /** The attempts made, this one included once claimed. */
  attempts: number;
  /** Its next_attempt_at as read: the claim's compare-and-set expects it. */
  dueAt: number;
  remaining: string[] | null;
  userId: number;
  eventType: string;
  payload: string;
  eventAt: number;
  webhook: DueEndpoint | null;
}

/** What an attempt left: the delivery's next state. */
export interface AttemptOutcome {
  status: DeliveryStatus;
  nextAttemptAt: number;
  lastStatusCode: number | null;
  lastError: string | null;
  remaining: string[] | null;
}

/** An endpoint with pending deliveries: whose it is, and when its first one is due. */
export interface BusyEndpoint {
  webhookId: number;
  userId: number;
  head: number;
}

/** An endpoint's health as stored. */
export interface EndpointHealthRow {
  consecutiveFailures: number;
  pausedUntil: number | null;
  disabledAt: number | null;
  disabledReason: string | null;
}

const INSERT_DELIVERY =
  'INSERT INTO deliveries (webhook_id, outbox_id, event, status, attempts, next_attempt_at, remaining, created_at, updated_at) ' +
  "VALUES (?, ?, ?, 'pending', 0, ?, ?, ?, ?)";
const MARK_DISPATCHED = 'UPDATE outbox SET dispatched_at = ? WHERE id = ? AND dispatched_at IS NULL';
const CLAIM =
  "UPDATE deliveries SET next_attempt_at = ?, attempts = attempts + 1, updated_at = ? WHERE id = ? AND status = 'pending' AND next_attempt_at = ?";
/**
 * Only while the claim is still this attempt's (a lapsed claim retaken elsewhere has counted
 * another attempt) and the delivery still pending (its endpoint's disabling gave it up).
 */
const FINISH =
  "UPDATE deliveries SET status = ?, next_attempt_at = ?, last_status_code = ?, last_error = ?, remaining = ?, updated_at = ? WHERE id = ? AND attempts = ? AND status = 'pending'";

const DUE_COLUMNS =
  'd.id, d.next_attempt_at, d.attempts, d.remaining, o.user_id, o.type, o.payload, o.created_at AS event_at, ' +
  'w.id AS webhook_id, w.public_id, w.url, w.secret, w.include_url_token, w.consecutive_failures, u.preferred_language';
/**
 * The endpoints with pending deliveries, each with its owner and its first delivery's due time:
 * one row per endpoint from the (status, webhook_id, next_attempt_at) index, without reading the
 * deliveries themselves. The worker takes users in turn from these (claim-order.ts).
 */
const BUSY_ENDPOINTS =
  "SELECT b.webhook_id, w.user_id, b.head FROM (SELECT webhook_id, MIN(next_attempt_at) AS head FROM deliveries WHERE status = 'pending' AND webhook_id IS NOT NULL GROUP BY webhook_id) b " +
  'JOIN webhooks w ON w.id = b.webhook_id';
/** One endpoint's first due deliveries, along the same index: however long its backlog, this reads `limit` of it. */
const DUE_TO_ENDPOINT =
  `SELECT ${DUE_COLUMNS} FROM deliveries d JOIN outbox o ON o.id = d.outbox_id JOIN webhooks w ON w.id = d.webhook_id LEFT JOIN users u ON u.id = w.user_id ` +
  "WHERE d.status = 'pending' AND d.webhook_id = ? AND d.next_attempt_at <= ? ORDER BY d.next_attempt_at LIMIT ?";
/**
 * Due mails to people (deliveries without an endpoint), every user's first before any user's
 * second (the longest waiting first among equals), at most `perUser` of each. A window over all of
 * them: link mails are bounded by PWP__NOTIFY_BY_EMAIL__DAILY_LIMIT per user, account mails by what
 * people do with their accounts. Window functions: SQLite 3.25, MariaDB 10.2, MySQL 8.
 */
const DUE_MAILS =
  `SELECT ${DUE_COLUMNS} FROM (` +
  'SELECT d.id, d.next_attempt_at, ROW_NUMBER() OVER (PARTITION BY o.user_id ORDER BY d.next_attempt_at, d.id) AS user_rank ' +
  "FROM deliveries d JOIN outbox o ON o.id = d.outbox_id WHERE d.status = 'pending' AND d.next_attempt_at <= ? AND d.webhook_id IS NULL" +
  ') ranked JOIN deliveries d ON d.id = ranked.id JOIN outbox o ON o.id = d.outbox_id LEFT JOIN webhooks w ON w.id = d.webhook_id LEFT JOIN users u ON u.id = w.user_id ' +
  'WHERE ranked.user_rank <= ? ORDER BY ranked.user_rank, ranked.next_attempt_at, ranked.id LIMIT ?';

const ENDPOINT_HEALTH = 'SELECT consecutive_failures, paused_until, disabled_at, disabled_reason FROM webhooks WHERE id = ?';
/** Compare-and-set on the count: of the attempts failing at once (in every replica), one counts. */
const PAUSE_ENDPOINT = 'UPDATE webhooks SET consecutive_failures = ?, paused_until = ? WHERE id = ? AND consecutive_failures = ? AND disabled_at IS NULL';
const DISABLE_ENDPOINT =
  'UPDATE webhooks SET consecutive_failures = ?, paused_until = NULL, disabled_at = ?, disabled_reason = ? WHERE id = ? AND consecutive_failures = ? AND disabled_at IS NULL';
const ENDPOINT_HEALTHY = 'UPDATE webhooks SET consecutive_failures = 0, paused_until = NULL WHERE id = ? AND consecutive_failures > 0';
/** Claimed ones too: their lease only grows, and their attempt's FINISH sets their own next attempt. */
const HOLD_DELIVERIES = "UPDATE deliveries SET next_attempt_at = ? WHERE webhook_id = ? AND status = 'pending' AND next_attempt_at < ?";
const GIVE_UP_DELIVERIES = "UPDATE deliveries SET status = 'dead', last_error = ?, updated_at = ? WHERE webhook_id = ? AND status = 'pending' AND id <> ?";

/**
 * The worker's queries. Each step is safe with every replica running it at once: an event is
 * dispatched by whoever marks it first (its deliveries are inserted in that transaction, so
 * exactly once), and a delivery is attempted by whoever moves its `next_attempt_at` from the
 * value it read (compare-and-set), which also leases it: a crashed attempt is due again when the
 * lease lapses. An endpoint's health changes by compare-and-set on its failure count.
 */
@Injectable()
export class DeliveriesRepository {
  constructor(private readonly sql: Sql) {}

  async undispatched(limit: number): Promise<UndispatchedEvent[]> {
    const rows = await this.sql.rows<Record<string, unknown>>('SELECT id, type, user_id FROM outbox WHERE dispatched_at IS NULL ORDER BY id LIMIT ?', [limit]);
    return rows.map((row) => ({ id: Number(row.id), type: row.type as string, userId: Number(row.user_id) }));
  }

  /** The user's endpoints that are not disabled, with the end of their pause if they are paused. */
  async webhooksOf(userId: number): Promise<{ id: number; events: number; pausedUntil: number | null }[]> {
    const rows = await this.sql.rows<Record<string, unknown>>('SELECT id, events, paused_until FROM webhooks WHERE user_id = ? AND disabled_at IS NULL ORDER BY id', [userId]);
    return rows.map((row) => ({ id: Number(row.id), events: Number(row.events), pausedUntil: nullableNumber(row.paused_until) }));
  }

  /** Marks the event dispatched and inserts its deliveries, in one transaction; false when another replica did first. */
  async dispatch(event: UndispatchedEvent, destinations: Destination[], now: number): Promise<boolean> {
    const inserts: Statement[] = destinations.map((destination) => ({
      sql: INSERT_DELIVERY,
      parameters: [destination.webhookId, event.id, event.type, destination.dueAt, destination.remaining && JSON.stringify(destination.remaining), now, now],
      atomic: true,
    }));
    return (await this.sql.writeIf({ sql: MARK_DISPATCHED, parameters: [now, event.id] }, inserts)) !== null;
  }

  async busyEndpoints(): Promise<BusyEndpoint[]> {
    const rows = await this.sql.rows<Record<string, unknown>>(BUSY_ENDPOINTS, []);
    return rows.map((row) => ({ webhookId: Number(row.webhook_id), userId: Number(row.user_id), head: Number(row.head) }));
  }

  /** The endpoint's first `limit` deliveries due at `now`, oldest first. */
  async dueTo(webhookId: number, now: number, limit: number): Promise<DueDelivery[]> {
    return (await this.sql.rows<Record<string, unknown>>(DUE_TO_ENDPOINT, [webhookId, now, limit])).map(toDueDelivery);
  }

  /** Up to `limit` mails to people due at `now`, users in turn, at most `perUser` of each. */
  async dueMails(now: number, perUser: number, limit: number): Promise<DueDelivery[]> {
    return (await this.sql.rows<Record<string, unknown>>(DUE_MAILS, [now, perUser, limit])).map(toDueDelivery);
  }

  /** Claims the delivery for this caller, leased until `leaseUntil`; false when another caller did first or it changed since read. */
  async claim(delivery: DueDelivery, now: number, leaseUntil: number): Promise<boolean> {
    return (await this.sql.write(CLAIM, [leaseUntil, now, delivery.id, delivery.dueAt])).affected === 1;
  }

  /** Records the attempt's outcome; false when the delivery was no longer this attempt's (retaken, or given up with its endpoint). */
  async finish(delivery: DueDelivery, outcome: AttemptOutcome, now: number): Promise<boolean> {
    const { affected } = await this.sql.write(FINISH, [
      outcome.status, outcome.nextAttemptAt, outcome.lastStatusCode, outcome.lastError?.slice(0, 255) ?? null,
      outcome.remaining && JSON.stringify(outcome.remaining), now, delivery.id, delivery.attempts,
    ]);
    return affected === 1;
  }

  async endpointHealth(webhookId: number): Promise<EndpointHealthRow | null> {
    const [row] = await this.sql.rows<Record<string, unknown>>(ENDPOINT_HEALTH, [webhookId]);
    if (!row) return null;
    return {
      consecutiveFailures: Number(row.consecutive_failures),
      pausedUntil: nullableNumber(row.paused_until),
      disabledAt: nullableNumber(row.disabled_at),
      disabledReason: (row.disabled_reason as string | null) ?? null,
    };
  }

  /** Counts a failure (if the count is still `failures`) and holds the endpoint's pending deliveries until `until`; false when another attempt counted first. */
  async pauseEndpoint(webhookId: number, failures: number, until: number): Promise<boolean> {
    if ((await this.sql.write(PAUSE_ENDPOINT, [failures + 1, until, webhookId, failures])).affected !== 1) return false;
    await this.sql.write(HOLD_DELIVERIES, [until, webhookId, until]);
    return true;
  }

  /**
   * Counts a failure and disables the endpoint (if the count is still `failures`), giving up its
   * pending deliveries but `exceptId` (whose attempt finishes it); how many were given up, or null
   * when another attempt counted first.
   */
  async disableEndpoint(webhookId: number, failures: number, reason: string, exceptId: number, now: number): Promise<number | null> {
    if ((await this.sql.write(DISABLE_ENDPOINT, [failures + 1, now, reason, webhookId, failures])).affected !== 1) return null;
    return (await this.sql.write(GIVE_UP_DELIVERIES, [reason, now, webhookId, exceptId])).affected;
  }

  async endpointHealthy(webhookId: number): Promise<void> {
    await this.sql.write(ENDPOINT_HEALTHY, [webhookId]);
  }

  /** What waits: pending deliveries and undispatched events, and the oldest one's age. */
  async queue(now: number): Promise<NotificationQueue> {
    const [pending] = await this.sql.rows<{ n: unknown; oldest: unknown }>("SELECT COUNT(*) AS n, MIN(created_at) AS oldest FROM deliveries WHERE status = 'pending'", []);
    const [waiting] = await this.sql.rows<{ n: unknown; oldest: unknown }>('SELECT COUNT(*) AS n, MIN(created_at) AS oldest FROM outbox WHERE dispatched_at IS NULL', []);
    const oldest = [pending?.oldest, waiting?.oldest].filter((value) => value !== null && value !== undefined).map(Number);
    return { depth: Number(pending?.n ?? 0) + Number(waiting?.n ?? 0), oldestAgeSeconds: oldest.length ? Math.max(0, (now - Math.min(...oldest)) / 1000) : 0 };
  }

  /** Deletes up to `limit` dispatched events older than `cutoff` with nothing pending, and their deliveries; returns how many. */
  async deleteHistory(cutoff: number, limit: number): Promise<number> {
    const rows = await this.sql.rows<{ id: unknown }>(
      "SELECT o.id FROM outbox o WHERE o.dispatched_at IS NOT NULL AND o.created_at < ? AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.outbox_id = o.id AND d.status = 'pending') ORDER BY o.id LIMIT ?",
      [cutoff, limit],
    );
    if (rows.length === 0) return 0;
    const ids = rows.map((row) => Number(row.id));
    return (await this.sql.write(`DELETE FROM outbox WHERE id IN (${ids.map(() => '?').join(', ')})`, ids)).affected;
  }
}

const nullableNumber = (value: unknown) => (value === null || value === undefined ? null : Number(value));

/** A due row; once claimed, one attempt more (claimed()). */
function toDueDelivery(row: Record<string, unknown>): DueDelivery {
  return {
    id: Number(row.id),
    attempts: Number(row.attempts),
    dueAt: Number(row.next_attempt_at),
    remaining: row.remaining === null ? null : (JSON.parse(row.remaining as string) as string[]),
    userId: Number(row.user_id),
    eventType: row.type as string,
    payload: row.payload as string,
    eventAt: Number(row.event_at),
    webhook:
      row.public_id === null
        ? null
        : {
            id: Number(row.webhook_id),
            publicId: row.public_id as string,
            url: row.url as string,
            secret: row.secret as Buffer,
            // SQLite and MySQL answer 1 or 0, PostgreSQL a boolean.
            includeUrlToken: Boolean(row.include_url_token),
            consecutiveFailures: Number(row.consecutive_failures),
            ownerLanguage: (row.preferred_language as string | null) ?? null,
          },
  };
}
