import { Column, Entity, ForeignKey, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { PushKind } from '@app/config';
import { epochMillis } from '@app/database';

/** Indexes and foreign keys as the migrations create them (test/database/schema.e2e-spec.ts holds the two together). */
@Entity({ name: 'pushes' })
@Index('ux_pushes_url_token', ['urlToken'], { unique: true })
@Index('ix_pushes_expired_expires_at', ['expired', 'expiresAt'])
@Index('ix_pushes_user_id_expired_id', ['userId', 'expired', 'id'])
@Index('ix_pushes_user_id_expired_expires_at', ['userId', 'expired', 'expiresAt'])
@Index('ix_pushes_expired_expired_on', ['expired', 'expiredOn'])
export class PushEntity {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ name: 'url_token', type: 'varchar', length: 64 })
  urlToken!: string;

  @Column({ type: 'varchar', length: 8 })
  kind!: PushKind;

  @Column({ type: 'varchar', length: 255, nullable: true })
  name!: string | null;

  /** AES-256-GCM ciphertext; null once the push has expired. */
  @Column({ type: 'blob', nullable: true })
  payload!: Buffer | null;

  @Column({ type: 'blob', nullable: true })
  note!: Buffer | null;

  /** Argon2id hash; null when there is no passphrase or the push has expired. */
  @Column({ name: 'passphrase_hash', type: 'varchar', length: 255, nullable: true })
  passphraseHash!: string | null;

  /** Kept after expiry, when the hash itself is gone. */
  @Column({ name: 'passphrase_protected', type: 'boolean', default: false })
  passphraseProtected!: boolean;

  @Column({ name: 'expire_after_days', type: 'int' })
  expireAfterDays!: number;

  @Column({ name: 'expire_after_views', type: 'int' })
  expireAfterViews!: number;

  @Column({ name: 'view_count', type: 'int', default: 0 })
  viewCount!: number;

  @Column({ name: 'deletable_by_viewer', type: 'boolean', nullable: true })
  deletableByViewer!: boolean | null;

  @Column({ name: 'retrieval_step', type: 'boolean' })
  retrievalStep!: boolean;

  @Column({ type: 'boolean', default: false })
  expired!: boolean;

  @Column({ type: 'boolean', default: false })
  deleted!: boolean;

  /** The owner, or null for an anonymous push. */
  @Column({ name: 'user_id', type: 'int', nullable: true })
  @ForeignKey('users', { name: 'fk_pushes_user', onDelete: 'SET NULL' })
  userId!: number | null;

  /** How many audit entries the push has, so hostile traffic can be capped without counting rows. */
  @Column({ name: 'audit_entry_count', type: 'int', default: 0 })
  auditEntryCount!: number;

  /** Recipients its link has been mailed to, over all sends (at most 5, counted in the statement that adds them). */
  @Column({ name: 'notify_emails_count', type: 'int', default: 0 })
  notifyEmailsCount!: number;

  @Column({ name: 'expired_on', type: 'bigint', nullable: true, transformer: epochMillis })
  expiredOn!: number | null;

  @Column({ name: 'expires_at', type: 'bigint', transformer: epochMillis })
  expiresAt!: number;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochMillis })
  createdAt!: number;

  @Column({ name: 'updated_at', type: 'bigint', transformer: epochMillis })
  updatedAt!: number;
}
