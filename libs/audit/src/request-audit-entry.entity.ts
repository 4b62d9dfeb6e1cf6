import { Column, Entity, ForeignKey, Index, PrimaryGeneratedColumn } from 'typeorm';
import { epochMillis } from '@app/database';
import type { RequestAuditKind } from './audit-entry.entity';

/** A secret request's audit log, as audit_entries is a push's (the migrations create both). */
@Entity({ name: 'request_audit_entries' })
@Index('ix_request_audit_entries_request_id_id', ['requestId', 'id'])
export class RequestAuditEntryEntity {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ name: 'request_id', type: 'int' })
  @ForeignKey('requests', { name: 'fk_request_audit_entries_request', onDelete: 'CASCADE' })
  requestId!: number;

  @Column({ type: 'varchar', length: 24 })
  kind!: RequestAuditKind;

  @Column({ type: 'varchar', length: 45 })
  ip!: string;

  @Column({ name: 'user_agent', type: 'varchar', length: 255 })
  userAgent!: string;

  @Column({ type: 'varchar', length: 255 })
  referrer!: string;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochMillis })
  createdAt!: number;

  @Column({ name: 'updated_at', type: 'bigint', transformer: epochMillis })
  updatedAt!: number;
}
