import { Column, Entity, ForeignKey, Index, PrimaryGeneratedColumn } from 'typeorm';
import { epochMillis } from '@app/database';

export const DELIVERY_STATUSES = ['pending', 'delivered', 'dead'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** One event to one destination, with its attempts so far. */
@Entity({ name: 'deliveries' })
@Index('ix_deliveries_status_next_attempt_at', ['status', 'nextAttemptAt'])
@Index('ix_deliveries_status_webhook_id_next_attempt_at', ['status', 'webhookId', 'nextAttemptAt'])
@Index('ix_deliveries_webhook_id_id', ['webhookId', 'id'])
@Index('ix_deliveries_outbox_id', ['outboxId'])
export class DeliveryEntity {
  @PrimaryGeneratedColumn()
  id!: number;

  /** The endpoint; null for a link mail to the recipients the push's owner named. */
  @Column({ name: 'webhook_id', type: 'int', nullable: true })
  @ForeignKey('webhooks', { name: 'fk_deliveries_webhook', onDelete: 'CASCADE' })
  webhookId!: number | null;

  @Column({ name: 'outbox_id', type: 'int' })
  @ForeignKey('outbox', { name: 'fk_deliveries_outbox', onDelete: 'CASCADE' })
  outboxId!: number;

  @Column({ type: 'varchar', length: 32 })
  event!: string;

  @Column({ type: 'varchar', length: 16 })
  status!: DeliveryStatus;

  @Column({ type: 'int', default: 0 })
  attempts!: number;

  /** When the next attempt is due; while an attempt runs, when its claim lapses. */
  @Column({ name: 'next_attempt_at', type: 'bigint', transformer: epochMillis })
  nextAttemptAt!: number;

  @Column({ name: 'last_status_code', type: 'int', nullable: true })
  lastStatusCode!: number | null;

  @Column({ name: 'last_error', type: 'varchar', length: 255, nullable: true })
  lastError!: string | null;

  /** A link mail's recipients still to send to, as JSON. */
  @Column({ type: 'text', nullable: true })
  remaining!: string | null;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochMillis })
  createdAt!: number;

  @Column({ name: 'updated_at', type: 'bigint', transformer: epochMillis })
  updatedAt!: number;
}
