import { Column, Entity, ForeignKey, Index, PrimaryGeneratedColumn } from 'typeorm';
import { epochMillis } from '@app/database';

@Entity({ name: 'file_attachments' })
@Index('ux_file_attachments_blob_key', ['blobKey'], { unique: true })
@Index('ix_file_attachments_push_id', ['pushId'])
@Index('ix_file_attachments_destroy_at', ['destroyAt'])
@Index('ix_file_attachments_request_id', ['requestId'])
export class FileAttachmentEntity {
  @PrimaryGeneratedColumn()
  id!: number;

  /** Null while the upload is being received (and for one that never finished). */
  @Column({ name: 'push_id', type: 'int', nullable: true })
  @ForeignKey('pushes', { name: 'fk_file_attachments_push', onDelete: 'CASCADE' })
  pushId!: number | null;

  /** Or the secret request it belongs to (set to null should the request be deleted: the row then waits for its destroy_at). */
  @Column({ name: 'request_id', type: 'int', nullable: true })
  @ForeignKey('requests', { name: 'fk_file_attachments_request', onDelete: 'SET NULL' })
  requestId!: number | null;

  /** A request's file: the responder's (true) or the requester's own (false). */
  @Column({ name: 'from_responder', type: 'boolean', default: false })
  fromResponder!: boolean;

  /** The blob's name in storage: random, never derived from the filename. */
  @Column({ name: 'blob_key', type: 'varchar', length: 64 })
  blobKey!: string;

  /** `{filename, contentType}` sealed with the master key ring. */
  @Column({ type: 'blob' })
  meta!: Buffer;

  /** The stream cipher's key, sealed with the master key ring. */
  @Column({ name: 'stream_key', type: 'blob' })
  streamKey!: Buffer;

  /** Plaintext bytes (the transformer reads a BIGINT as a number). */
  @Column({ type: 'bigint', default: 0, transformer: epochMillis })
  size!: number;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochMillis })
  createdAt!: number;

  /** When the sweep destroys the blob: a day after an upload began, then its push's end (or sooner). */
  @Column({ name: 'destroy_at', type: 'bigint', transformer: epochMillis })
  destroyAt!: number;
}
