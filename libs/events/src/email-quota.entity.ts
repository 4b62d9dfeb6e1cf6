import { Column, Entity, ForeignKey, Index, PrimaryGeneratedColumn } from 'typeorm';

/** How many link-mail recipients a user has named on one UTC day (see Outbox.countEmails). */
@Entity({ name: 'email_quotas' })
@Index('ux_email_quotas_user_id', ['userId'], { unique: true })
export class EmailQuotaEntity {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ name: 'user_id', type: 'int' })
  @ForeignKey('users', { name: 'fk_email_quotas_user', onDelete: 'CASCADE' })
  userId!: number;

  /** Days since the epoch, UTC. */
  @Column({ name: 'utc_day', type: 'int', default: 0 })
  utcDay!: number;

  @Column({ type: 'int', default: 0 })
  emails!: number;
}
