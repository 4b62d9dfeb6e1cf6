import { Injectable } from '@nestjs/common';
import { WebhookOwners } from '@app/auth';
import { Sql } from '@app/database';
import { WebhookEntity } from './webhook.entity';

export type NewWebhook = Omit<WebhookEntity, 'id' | 'consecutiveFailures' | 'pausedUntil' | 'disabledAt' | 'disabledReason'>;
/** A recent delivery to an endpoint, with the message id its event carries. */
export interface DeliveryRow {
  event: string;
  status: string;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  payload: string;
  createdAt: number;
  updatedAt: number;
}

const INSERTED = 'public_id, user_id, url, events, description, secret, include_url_token, created_at, updated_at';
const COLUMNS = `id, ${INSERTED}, consecutive_failures, paused_until, disabled_at, disabled_reason`;
type WebhookRow = Record<string, unknown>;

const nullableNumber = (value: unknown) => (value === null || value === undefined ? null : Number(value));

const toWebhook = (row: WebhookRow): WebhookEntity => ({
  id: Number(row.id),
  publicId: row.public_id as string,
  userId: Number(row.user_id),
  url: row.url as string,
  events: Number(row.events),
  description: (row.description as string | null) ?? null,
  secret: row.secret as Buffer,
  // SQLite and MySQL answer 1 or 0, PostgreSQL a boolean.
  includeUrlToken: Boolean(row.include_url_token),
  consecutiveFailures: Number(row.consecutive_failures),
  pausedUntil: nullableNumber(row.paused_until),
  disabledAt: nullableNumber(row.disabled_at),
  disabledReason: (row.disabled_reason as string | null) ?? null,
  createdAt: Number(row.created_at),
  updatedAt: Number(row.updated_at),
});

/** The owners' endpoints. Every change also refreshes the owner's flag (auth's WebhookOwners) from what is now stored. */
@Injectable()
export class WebhooksRepository {
  constructor(
    private readonly sql: Sql,
    private readonly owners: WebhookOwners,
  ) {}

  async insert(webhook: NewWebhook): Promise<void> {
    await this.sql.write(`INSERT INTO webhooks (${INSERTED}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, [
      webhook.publicId, webhook.userId, webhook.url, webhook.events, webhook.description, webhook.secret, webhook.includeUrlToken ? 1 : 0, webhook.createdAt, webhook.updatedAt,
    ]);
    await this.refreshOwnerFlag(webhook.userId);
  }

  async countOwnedBy(userId: number): Promise<number> {
    const [row] = await this.sql.rows<{ n: unknown }>('SELECT COUNT(*) AS n FROM webhooks WHERE user_id = ?', [userId]);
    return Number(row?.n ?? 0);
  }

  async findOwnedBy(userId: number): Promise<WebhookEntity[]> {
    return (await this.sql.rows<WebhookRow>(`SELECT ${COLUMNS} FROM webhooks WHERE user_id = ? ORDER BY id`, [userId])).map(toWebhook);
  }

  /** The user's endpoint with this public id; another user's is not found. */
  async findOwned(userId: number, publicId: string): Promise<WebhookEntity | null> {
    const [row] = await this.sql.rows<WebhookRow>(`SELECT ${COLUMNS} FROM webhooks WHERE user_id = ? AND public_id = ?`, [userId, publicId]);
    return row ? toWebhook(row) : null;
  }

  /** Deletes the endpoint; its pending deliveries go with it (foreign key cascade). */
  async delete(webhook: WebhookEntity): Promise<void> {
    await this.sql.write('DELETE FROM webhooks WHERE id = ?', [webhook.id]);
    await this.refreshOwnerFlag(webhook.userId);
  }

  async replaceSecret(id: number, secret: Buffer, now: number): Promise<void> {
    await this.sql.write('UPDATE webhooks SET secret = ?, updated_at = ? WHERE id = ?', [secret, now, id]);
  }

  /** Healthy again, as its owner says: the failure count starts over and new events reach it (those given up on stay dead). */
  async enable(id: number, now: number): Promise<void> {
    await this.sql.write('UPDATE webhooks SET disabled_at = NULL, disabled_reason = NULL, consecutive_failures = 0, paused_until = NULL, updated_at = ? WHERE id = ?', [now, id]);
  }

  async recentDeliveries(webhookId: number, limit: number): Promise<DeliveryRow[]> {
    const rows = await this.sql.rows<Record<string, unknown>>(
      'SELECT d.event, d.status, d.attempts, d.last_status_code, d.last_error, o.payload, d.created_at, d.updated_at ' +
        'FROM deliveries d JOIN outbox o ON o.id = d.outbox_id WHERE d.webhook_id = ? ORDER BY d.id DESC LIMIT ?',
      [webhookId, limit],
    );
    return rows.map((row) => ({
      event: row.event as string,
      status: row.status as string,
      attempts: Number(row.attempts),
      lastStatusCode: row.last_status_code === null ? null : Number(row.last_status_code),
      lastError: (row.last_error as string | null) ?? null,
      payload: row.payload as string,
      createdAt: Number(row.created_at),
      updatedAt: Number(row.updated_at),
    }));
  }

  private refreshOwnerFlag(userId: number): Promise<void> {
    return this.owners.refresh(userId, 'SELECT COUNT(*) FROM webhooks w WHERE w.user_id = ?');
  }
}
