import { Column, Entity, ForeignKey, Index, PrimaryGeneratedColumn } from 'typeorm';
import { epochMillis } from '@app/database';

/** open: waiting for its answer; ready: answered; closed: by its owner or its time, the answer and files destroyed. */
export const REQUEST_STATES = ['open', 'ready', 'closed'] as const;
export type RequestState = (typeof REQUEST_STATES)[number];

/** A secret request; indexes and foreign keys as the migration creates them (test/database/schema.e2e-spec.ts holds the two together). */
@Entity({ name: 'requests' })
@Index('ux_requests_url_token', ['urlToken'], { unique: true })
@Index('ix_requests_state_close_after_at', ['state', 'closeAfterAt'])
@Index('ix_requests_user_id_state_id', ['userId', 'state', 'id'])
@Index('ix_requests_state_closed_at', ['state', 'closedAt'])
export class RequestEntity {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ name: 'url_token', type: 'varchar', length: 64 })
  urlToken!: string;

  /** The requester: requests always have one. */
  @Column({ name: 'user_id', type: 'int' })
  @ForeignKey('users', { name: 'fk_requests_user', onDelete: 'CASCADE' })
  userId!: number;

  /** The message to the responder, AES-256-GCM ciphertext. */
  @Column({ type: 'blob' })
  message!: Buffer;

  @Column({ type: 'varchar', length: 255, nullable: true })
  name!: string | null;

  @Column({ type: 'blob', nullable: true })
  note!: Buffer | null;

  /** The answer, AES-256-GCM ciphertext; null until answered and once closed. */
  @Column({ type: 'blob', nullable: true })
  response!: Buffer | null;

  /** Argon2id hash; null when there is no passphrase or the request has closed. */
  @Column({ name: 'passphrase_hash', type: 'varchar', length: 255, nullable: true })
  passphraseHash!: string | null;

  @Column({ name: 'passphrase_protected', type: 'boolean', default: false })
  passphraseProtected!: boolean;

  @Column({ name: 'retrieval_step', type: 'boolean', default: false })
  retrievalStep!: boolean;

  @Column({ name: 'include_requestor', type: 'boolean', default: false })
  includeRequestor!: boolean;

  @Column({ name: 'response_file_attachments', type: 'boolean', default: false })
  responseFileAttachments!: boolean;

  @Column({ type: 'varchar', length: 8 })
  state!: RequestState;

  @Column({ name: 'close_after_duration', type: 'int' })
  closeAfterDuration!: number;

  @Column({ name: 'close_after_at', type: 'bigint', transformer: epochMillis })
  closeAfterAt!: number;

  @Column({ name: 'responded_at', type: 'bigint', nullable: true, transformer: epochMillis })
  respondedAt!: number | null;

  @Column({ name: 'closed_at', type: 'bigint', nullable: true, transformer: epochMillis })
  closedAt!: number | null;

  /** How many audit entries the request has, so hostile traffic (wrong passphrases) can be capped without counting rows. */
  @Column({ name: 'audit_entry_count', type: 'int', default: 0 })
  auditEntryCount!: number;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochMillis })
  createdAt!: number;

  @Column({ name: 'updated_at', type: 'bigint', transformer: epochMillis })
  updatedAt!: number;
}
