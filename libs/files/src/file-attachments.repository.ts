import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, IsNull, LessThanOrEqual, MoreThan, Repository } from 'typeorm';
import { FileAttachmentEntity } from './file-attachment.entity';

export type NewUpload = Pick<FileAttachmentEntity, 'blobKey' | 'meta' | 'streamKey' | 'createdAt' | 'destroyAt'>;
export type BlobRef = Pick<FileAttachmentEntity, 'id' | 'blobKey'>;

/** Whose files: a push's, or one side of a secret request's (the requester's own, or the responder's). */
export type FileHolder = { pushId: number } | { requestId: number; fromResponder: boolean };

/** Every query on file attachments. Only file pushes and requests reach them, so they use the ORM's portable API. */
@Injectable()
export class FileAttachmentsRepository {
  constructor(@InjectRepository(FileAttachmentEntity) private readonly files: Repository<FileAttachmentEntity>) {}

  /** An upload being received: written before its blob, so the blob is always named by a row. */
  async insertUpload(upload: NewUpload): Promise<number> {
    const result = await this.files.insert({ ...upload, pushId: null, requestId: null, fromResponder: false, size: 0 });
    return Number(result.identifiers[0].id);
  }

  async setSize(id: number, size: number): Promise<void> {
    await this.files.update({ id }, { size });
  }

  /** Gives the uploads to a push, to be destroyed at `destroyAt`; returns how many it took (uploads already given or removed are not). */
  async attach(ids: number[], pushId: number, destroyAt: number): Promise<number> {
    if (ids.length === 0) return 0;
    return this.attachTo(ids, { pushId }, destroyAt);
  }

  /** Gives the uploads to a push or a request; returns how many it took. */
  async attachTo(ids: number[], holder: FileHolder, destroyAt: number): Promise<number> {
    if (ids.length === 0) return 0;
    return (await this.files.update({ id: In(ids), pushId: IsNull(), requestId: IsNull() }, { ...holder, destroyAt })).affected ?? 0;
  }

  /** The holder's files in upload order. */
  findFor(holder: FileHolder): Promise<FileAttachmentEntity[]> {
    return this.files.find({ where: holder, order: { id: 'ASC' } });
  }

  findOneFor(id: number, holder: FileHolder): Promise<FileAttachmentEntity | null> {
    return this.files.findOneBy({ id, ...holder });
  }

  blobsOfRequests(requestIds: number[]): Promise<BlobRef[]> {
    if (requestIds.length === 0) return Promise.resolve([]);
    return this.files.find({ select: { id: true, blobKey: true }, where: { requestId: In(requestIds) } });
  }

  /** A push's files in upload order. */
  findForPush(pushId: number): Promise<FileAttachmentEntity[]> {
    return this.files.find({ where: { pushId }, order: { id: 'ASC' } });
  }

  findOneForPush(id: number, pushId: number): Promise<FileAttachmentEntity | null> {
    return this.files.findOneBy({ id, pushId });
  }

  /** Brings the destruction of a push's files forward to `destroyAt` (never later than planned). */
  async destroyNoLaterThan(pushId: number, destroyAt: number): Promise<void> {
    await this.files.update({ pushId, destroyAt: MoreThan(destroyAt) }, { destroyAt });
  }

  blobsOfPushes(pushIds: number[]): Promise<BlobRef[]> {
    if (pushIds.length === 0) return Promise.resolve([]);
    return this.files.find({ select: { id: true, blobKey: true }, where: { pushId: In(pushIds) } });
  }

  /** Of these uploads, those no push has taken. */
  unattachedBlobs(ids: number[]): Promise<BlobRef[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.files.find({ select: { id: true, blobKey: true }, where: { id: In(ids), pushId: IsNull(), requestId: IsNull() } });
  }

  /** Up to `limit` blobs whose time has come, oldest first (by the destroy_at index). */
  dueBlobs(now: number, limit: number): Promise<BlobRef[]> {
    return this.files.find({ select: { id: true, blobKey: true }, where: { destroyAt: LessThanOrEqual(now) }, order: { destroyAt: 'ASC' }, take: limit });
  }

  async delete(ids: number[]): Promise<void> {
    if (ids.length > 0) await this.files.delete({ id: In(ids) });
  }
}
