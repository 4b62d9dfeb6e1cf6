import { Injectable } from '@nestjs/common';
import { Clock, NotFoundError } from '@app/common';
import { Sql } from '@app/database';

/** What the administration lists: waiting (never tried or not yet failed), failed and being retried, given up. */
export const DELIVERY_VIEWS = ['pending', 'failed', 'dead'] as const;
export type DeliveryView = (typeof DELIVERY_VIEWS)[number];
export const DELIVERY_PAGE_SIZE = 25;

/** A delivery as the administration lists it: never its payload nor its endpoint's address or secret. */
export interface DeliveryRecord {
  id: number;
  event: string;
  /** `webhook` (an owner's endpoint, by id) or `mail` (a link mail to the recipients an owner named). */
  channel: 'webhook' | 'mail';
  webhookId: number | null;
  status: string;
  attempts: number;
  nextAttemptAt: number;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: number;
}

const WHERE: Record<DeliveryView, string> = {
  pending: "status = 'pending' AND last_error IS NULL",
  failed: "status = 'pending' AND last_error IS NOT NULL",
  dead: "status = 'dead'",
};
const COLUMNS = 'id, event, webhook_id, status, attempts, next_attempt_at, last_status_code, last_error, created_at';
const RETRY = "UPDATE deliveries SET status = 'pending', attempts = 0, next_attempt_at = ?, last_error = NULL, last_status_code = NULL, updated_at = ? WHERE id = ? AND status = 'dead'";

/**
 * The notification records the administration shows: how many deliveries wait and how many died,
 * the lists of each (newest first, keyset by id), and "retry" for a dead one (pending again, due
 * now, its attempts from zero; the worker takes it on its next round).
 */
@Injectable()
export class DeliveryRecords {
  constructor(
    private readonly sql: Sql,
    private readonly clock: Clock,
  ) {}

  async counts(): Promise<{ queued: number; dead: number }> {
    const rows = await this.sql.rows<{ status: string; n: unknown }>("SELECT status, COUNT(*) AS n FROM deliveries WHERE status IN ('pending', 'dead') GROUP BY status", []);
    const of = (status: string) => Number(rows.find((row) => row.status === status)?.n ?? 0);
    return { queued: of('pending'), dead: of('dead') };
  }

  async page(view: DeliveryView, before?: number): Promise<{ deliveries: DeliveryRecord[]; next?: number }> {
    const rows = await this.sql.rows<Record<string, unknown>>(
      `SELECT ${COLUMNS} FROM deliveries WHERE ${WHERE[view]}${before === undefined ? '' : ' AND id < ?'} ORDER BY id DESC LIMIT ?`,
      before === undefined ? [DELIVERY_PAGE_SIZE + 1] : [before, DELIVERY_PAGE_SIZE + 1],
    );
    const deliveries = rows.slice(0, DELIVERY_PAGE_SIZE).map(toRecord);
    return rows.length > DELIVERY_PAGE_SIZE ? { deliveries, next: deliveries[deliveries.length - 1].id } : { deliveries };
  }

  /** Makes a dead delivery pending again, due now; 404 when there is no dead delivery of that id. */
  async retry(id: number): Promise<void> {
    const now = this.clock.now();
    if ((await this.sql.write(RETRY, [now, now, id])).affected === 0) throw new NotFoundError();
  }
}

function toRecord(row: Record<string, unknown>): DeliveryRecord {
  const webhookId = row.webhook_id === null ? null : Number(row.webhook_id);
  return {
    id: Number(row.id),
    event: row.event as string,
    channel: webhookId === null ? 'mail' : 'webhook',
    webhookId,
    status: row.status as string,
    attempts: Number(row.attempts),
    nextAttemptAt: Number(row.next_attempt_at),
    lastStatusCode: row.last_status_code === null ? null : Number(row.last_status_code),
    lastError: (row.last_error as string | null) ?? null,
    createdAt: Number(row.created_at),
  };
}
