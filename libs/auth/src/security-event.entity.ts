import { Column, Entity, ForeignKey, Index, PrimaryGeneratedColumn } from 'typeorm';
import { epochMillis } from '@app/database';

/** One entry of a person's security log; see SecurityLog. */
@Entity({ name: 'security_events' })
@Index('ix_security_events_user_id_id', ['userId', 'id'])
export class SecurityEventEntity {
  @PrimaryGeneratedColumn()
  id!: number;

  /** Null once the account is deleted; `email` still says whose entry it was. */
  @Column({ name: 'user_id', type: 'int', nullable: true })
  @ForeignKey('users', { name: 'fk_security_events_user', onDelete: 'SET NULL' })
  userId!: number | null;

  @Column({ type: 'varchar', length: 255 })
  email!: string;

  @Column({ type: 'varchar', length: 32 })
  kind!: string;

  @Column({ type: 'varchar', length: 45, nullable: true })
  ip!: string | null;

  @Column({ name: 'user_agent', type: 'varchar', length: 255, nullable: true })
  userAgent!: string | null;

  /** A small JSON object; never a secret. */
  @Column({ type: 'varchar', length: 1000, nullable: true })
  detail!: string | null;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochMillis })
  createdAt!: number;
}
