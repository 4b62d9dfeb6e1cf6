import { Column, Entity, ForeignKey, Index, PrimaryGeneratedColumn } from 'typeorm';
import { epochMillis } from '@app/database';

/** An event waiting in the outbox, or dispatched into deliveries (kept a while as their history). */
@Entity({ name: 'outbox' })
@Index('ix_outbox_dispatched_at_id', ['dispatchedAt', 'id'])
@Index('ix_outbox_user_id_created_at', ['userId', 'createdAt'])
export class OutboxEventEntity {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ type: 'varchar', length: 32 })
  type!: string;

  /** The owner of the push the event is about: whose endpoints hear of it. */
  @Column({ name: 'user_id', type: 'int' })
  @ForeignKey('users', { name: 'fk_outbox_user', onDelete: 'CASCADE' })
  userId!: number;

  /** The event as JSON; never a secret. */
  @Column({ type: 'text' })
  payload!: string;

  /** Addresses the owner named that this event mails (counted against their daily limit). */
  @Column({ name: 'email_count', type: 'int', default: 0 })
  emailCount!: number;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochMillis })
  createdAt!: number;

  @Column({ name: 'dispatched_at', type: 'bigint', nullable: true, transformer: epochMillis })
  dispatchedAt!: number | null;
}
