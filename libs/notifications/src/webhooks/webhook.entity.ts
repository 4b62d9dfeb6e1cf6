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

  @Column({ name: 'created_at', type: 'bigint', transformer: epochMillis })
  createdAt!: number;

  @Column({ name: 'updated_at', type: 'bigint', transformer: epochMillis })
  updatedAt!: number;
}
