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

/** One destination of an event: an endpoint, or (null) the recipients of a link mail. */
export interface Destination {
  webhookId: number | null;
  remaining: string[] | null;
}

/** A claimed delivery with what its attempt needs: the event, and the endpoint when it has one. */
export interface DueDelivery {
  id: number;
  attempts: number;
  remaining: string[] | null;
  eventType: string;
  payload: string;
  eventAt: number;
  webhook: { publicId: string; url: string; secret: Buffer } | null;
}

/** What an attempt left: the delivery's next state. */
export interface AttemptOutcome {
  status: DeliveryStatus;
  nextAttemptAt: number;
  lastStatusCode: number | null;
  lastError: string | null;
  remaining: string[] | null;
}

const INSERT_DELIVERY =
  'INSERT INTO deliveries (webhook_id, outbox_id, event, status, attempts, next_attempt_at, remaining, created_at, updated_at) ' +
  "VALUES (?, ?, ?, 'pending', 0, ?, ?, ?, ?)";
const MARK_DISPATCHED = 'UPDATE outbox SET dispatched_at = ? WHERE id = ? AND dispatched_at IS NULL';
const CLAIM =
  "UPDATE deliveries SET next_attempt_at = ?, attempts = attempts + 1, updated_at = ? WHERE id = ? AND status = 'pending' AND next_attempt_at = ?";
/** The due deliveries with what their attempts need, read once: each is then claimed by compare-and-set. */
const SELECT_DUE =
  'SELECT d.id, d.next_attempt_at, d.attempts, d.remaining, o.type, o.payload, o.created_at AS event_at, w.public_id, w.url, w.secret ' +
  'FROM deliveries d JOIN outbox o ON o.id = d.outbox_id LEFT JOIN webhooks w ON w.id = d.webhook_id ' +
  "WHERE d.status = 'pending' AND d.next_attempt_at <= ? ORDER BY d.next_attempt_at LIMIT ?";
/** Only while the claim is still this attempt's: a lapsed claim retaken elsewhere has counted another attempt. */
const FINISH =
  'UPDATE deliveries SET status = ?, next_attempt_at = ?, last_status_code = ?, last_error = ?, remaining = ?, updated_at = ? WHERE id = ? AND attempts = ?';

/**
 * The worker's queries. Each step is safe with every replica running it at once: an event is
 * dispatched by whoever marks it first (its deliveries are inserted in that transaction, so
 * exactly once), and a delivery is attempted by whoever moves its `next_attempt_at` from the
 * value it read (compare-and-set), which also leases it: a crashed attempt is due again when the
 * lease lapses.
 */
@Injectable()
export class DeliveriesRepository {
  constructor(private readonly sql: Sql) {}

  async undispatched(limit: number): Promise<UndispatchedEvent[]> {
    const rows = await this.sql.rows<Record<string, unknown>>('SELECT id, type, user_id FROM outbox WHERE dispatched_at IS NULL ORDER BY id LIMIT ?', [limit]);
    return rows.map((row) => ({ id: Number(row.id), type: row.type as string, userId: Number(row.user_id) }));
  }

  async webhooksOf(userId: number): Promise<{ id: number; events: number }[]> {
    const rows = await this.sql.rows<Record<string, unknown>>('SELECT id, events FROM webhooks WHERE user_id = ? ORDER BY id', [userId]);
    return rows.map((row) => ({ id: Number(row.id), events: Number(row.events) }));
  }

  /** Marks the event dispatched and inserts its deliveries, in one transaction; false when another replica did first. */
  async dispatch(event: UndispatchedEvent, destinations: Destination[], now: number): Promise<boolean> {
    const inserts: Statement[] = destinations.map((destination) => ({
      sql: INSERT_DELIVERY,
      parameters: [destination.webhookId, event.id, event.type, now, destination.remaining && JSON.stringify(destination.remaining), now, now],
      atomic: true,
    }));
    return (await this.sql.writeIf({ sql: MARK_DISPATCHED, parameters: [now, event.id] }, inserts)) !== null;
  }

  /** Up to `limit` deliveries due at `now`, each claimed (leased until `leaseUntil`) by this caller. */
  async claimDue(now: number, leaseUntil: number, limit: number): Promise<DueDelivery[]> {
    const due = await this.sql.rows<Record<string, unknown>>(SELECT_DUE, [now, limit]);
    const claimed: DueDelivery[] = [];
    for (const row of due) {
      const { affected } = await this.sql.write(CLAIM, [leaseUntil, now, row.id, row.next_attempt_at]);
      if (affected === 1) claimed.push(toClaimedDelivery(row));
    }
    return claimed;
  }

  async finish(delivery: DueDelivery, outcome: AttemptOutcome, now: number): Promise<void> {
    await this.sql.write(FINISH, [
      outcome.status, outcome.nextAttemptAt, outcome.lastStatusCode, outcome.lastError?.slice(0, 255) ?? null,
      outcome.remaining && JSON.stringify(outcome.remaining), now, delivery.id, delivery.attempts,
    ]);
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

/** A due row as its claim left it: one attempt more. */
function toClaimedDelivery(row: Record<string, unknown>): DueDelivery {
  return {
    id: Number(row.id),
    attempts: Number(row.attempts) + 1,
    remaining: row.remaining === null ? null : (JSON.parse(row.remaining as string) as string[]),
    eventType: row.type as string,
    payload: row.payload as string,
    eventAt: Number(row.event_at),
    webhook: row.public_id === null ? null : { publicId: row.public_id as string, url: row.url as string, secret: row.secret as Buffer },
  };
}
