import { Column, Entity, ForeignKey, Index, PrimaryGeneratedColumn } from 'typeorm';
import { epochMillis } from '@app/database';

export const AUDIT_KINDS = ['creation', 'view', 'failed_view', 'expire', 'failed_passphrase', 'owner_view', 'file_download', 'creation_email_send', 'admin_view'] as const;
export type AuditKind = (typeof AUDIT_KINDS)[number];
/** What a secret request's log tells: its creation, the responder opening it (view), a wrong passphrase, the answer, each read of it, its close. */
export const REQUEST_AUDIT_KINDS = ['creation', 'view', 'failed_passphrase', 'response', 'response_view', 'expire'] as const;
export type RequestAuditKind = (typeof REQUEST_AUDIT_KINDS)[number];

@Entity({ name: 'audit_entries' })
@Index('ix_audit_entries_push_id_id', ['pushId', 'id'])
export class AuditEntryEntity {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ name: 'push_id', type: 'int' })
  @ForeignKey('pushes', { name: 'fk_audit_entries_push', onDelete: 'CASCADE' })
  pushId!: number;

  @Column({ type: 'varchar', length: 24 })
  kind!: AuditKind;

  @Column({ type: 'varchar', length: 45 })
  ip!: string;

  @Column({ name: 'user_agent', type: 'varchar', length: 255 })
  userAgent!: string;

  @Column({ type: 'varchar', length: 255 })
  referrer!: string;

  /** What a `creation_email_send` entry shows of its mail (`notify_by_email`), or which administrator an `expire` or `admin_view` was (`{"admin": email}`), as JSON; else null. */
  @Column({ type: 'text', nullable: true })
  details!: string | null;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochMillis })
  createdAt!: number;

  @Column({ name: 'updated_at', type: 'bigint', transformer: epochMillis })
  updatedAt!: number;
}
