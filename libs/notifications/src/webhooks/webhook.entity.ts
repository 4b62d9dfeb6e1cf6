import { Column, Entity, ForeignKey, Index, PrimaryGeneratedColumn } from 'typeorm';
import { epochMillis } from '@app/database';

/** An owner's endpoint: an https URL that receives signed events, or `mailto:` the owner's own address. */
@Entity({ name: 'webhooks' })
@Index('ux_webhooks_public_id', ['publicId'], { unique: true })
@Index('ix_webhooks_user_id', ['userId'])
export class WebhookEntity {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ name: 'public_id', type: 'varchar', length: 32 })
  publicId!: string;

  @Column({ name: 'user_id', type: 'int' })
  @ForeignKey('users', { name: 'fk_webhooks_user', onDelete: 'CASCADE' })
  userId!: number;

  @Column({ type: 'varchar', length: 2048 })
  url!: string;

  /** The subscribed event types, one bit each (see EVENT_BITS). */
  @Column({ type: 'int' })
  events!: number;

  @Column({ type: 'varchar', length: 255, nullable: true })
  description!: string | null;

  /** The signing secret, sealed with the master key ring. */
  @Column({ type: 'blob' })
  secret!: Buffer;

  /** Whether bodies carry the push's full url_token (the owner's opt-in), not only its first 8 characters. */
  @Column({ name: 'include_url_token', type: 'boolean', default: false })
  includeUrlToken!: boolean;

  /** Failed attempts in a row (those failing together during one pause count once); a success resets it. */
  @Column({ name: 'consecutive_failures', type: 'int', default: 0 })
  consecutiveFailures!: number;

  /** Until when its deliveries wait after a failure (backoff for the endpoint as a whole). */
  @Column({ name: 'paused_until', type: 'bigint', nullable: true, transformer: epochMillis })
  pausedUntil!: number | null;

  /** When it was disabled after PWP__NOTIFICATIONS__DISABLE_AFTER_FAILURES; nothing is sent to it until its owner enables it. */
  @Column({ name: 'disabled_at', type: 'bigint', nullable: true, transformer: epochMillis })
  disabledAt!: number | null;

  @Column({ name: 'disabled_reason', type: 'varchar', length: 255, nullable: true })
  disabledReason!: string | null;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochMillis })
  createdAt!: number;

  @Column({ name: 'updated_at', type: 'bigint', transformer: epochMillis })
  updatedAt!: number;
}
