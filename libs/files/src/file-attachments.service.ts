import { Injectable } from '@nestjs/common';
import { lookup } from 'mime-types';
import { createHash } from 'node:crypto';
import { pipeline, type Readable, Transform, type TransformCallback } from 'node:stream';
import { Clock, PayloadTooLargeError, ValidationFailedError } from '@app/common';
import { formatBytes, InjectSettings, Settings } from '@app/config';
import { chunkRange, decryptStream, encryptStream, FieldCipher, randomToken, StreamKey } from '@app/crypto';
import { type FileDirection, Metrics } from '@app/metrics';
import { BlobStore, type ByteRange } from './blob-store';
import { DownloadLinks } from './download-links';
import type { FileAttachmentEntity } from './file-attachment.entity';
import { BlobRef, FileAttachmentsRepository } from './file-attachments.repository';

/** A file as it arrives: from a multipart part, or decoded from a JSON body. */
export interface IncomingFile {
  filename: string;
  contentType: string;
  stream: Readable;
}

/** A push's file as a retrieval shows it, with a link that works for `linkLifetimeSeconds`. */
export interface AttachedFile {
  filename: string;
  contentType: string;
  size: number;
  link: string;
}

/** A file ready to be sent: its description, and its plaintext bytes (all, or a range) on demand. */
export interface StoredFile {
  filename: string;
  contentType: string;
  size: number;
  /** Strong: a stored file never changes. */
  etag: string;
  read(range?: ByteRange): Promise<Readable>;
}

/** Uploads that no push took are removed after this long: only a process that died mid-upload leaves them. */
const ABANDONED_UPLOAD_MS = 24 * 60 * 60 * 1000;
const FILENAME_MAX = 255;
const SAFE_CONTENT_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;
/** What clients send when they do not know better; the filename's extension is then a better guess. */
const VAGUE_CONTENT_TYPES = new Set(['', 'text/plain', 'application/octet-stream']);

/**
 * File attachments: encrypted while they stream in, kept in the BlobStore under random keys,
 * listed with signed short-lived links, streamed back decrypted, destroyed with their push.
 */
@Injectable()
export class FileAttachments {
  private readonly links: DownloadLinks;
  /** A request's links have a key of their own: no push's link can name a request's file, nor the reverse. */
  private readonly requestLinks: DownloadLinks;

  constructor(
    private readonly repository: FileAttachmentsRepository,
    private readonly store: BlobStore,
    private readonly cipher: FieldCipher,
    private readonly clock: Clock,
    @InjectSettings() private readonly settings: Settings,
    private readonly metrics: Metrics,
  ) {
    this.links = new DownloadLinks(cipher.deriveKey('file-download-links'));
    this.requestLinks = new DownloadLinks(cipher.deriveKey('request-file-download-links'));
  }

  /** A new set of uploads for one push, within the per-push limits. */
  uploads(): UploadBatch {
    return new UploadBatch(this, this.settings.files);
  }

  /** Gives the batch's uploads to the push; from then on they live with it, until `destroyAt` at the latest. */
  async attach(pushId: number, batch: UploadBatch, destroyAt: number): Promise<void> {
    const taken = await this.repository.attach(batch.ids, pushId, destroyAt);
    if (taken !== batch.ids.length) throw new Error('An upload was removed before its push was created.');
  }

  /** The push's files stay for the links of its last view, and are destroyed once those have lapsed. */
  async keepForLinks(pushId: number): Promise<void> {
    await this.repository.destroyNoLaterThan(pushId, this.linkExpiry());
  }

  /** The push's files, each with a link that works until `now` + the link lifetime. */
  async listFor(pushId: number): Promise<AttachedFile[]> {
    const expiresAt = this.linkExpiry();
    const rows = await this.repository.findForPush(pushId);
    return rows.map((row) => ({ ...this.metaOf(row), size: row.size, link: this.links.sign(pushId, row.id, expiresAt) }));
  }

  /** Gives the batch's uploads to one side of a secret request, until `destroyAt` at the latest (its close). */
  async attachToRequest(requestId: number, fromResponder: boolean, batch: UploadBatch, destroyAt: number): Promise<void> {
    const taken = await this.repository.attachTo(batch.ids, { requestId, fromResponder }, destroyAt);
    if (taken !== batch.ids.length) throw new Error('An upload was removed before its request took it.');
  }

  /** One side's files of a secret request, each with a link that works until `now` + the link lifetime. */
  async listForRequest(requestId: number, fromResponder: boolean): Promise<AttachedFile[]> {
    const expiresAt = this.linkExpiry();
    const rows = await this.repository.findFor({ requestId, fromResponder });
    return rows.map((row) => ({ ...this.metaOf(row), size: row.size, link: this.requestLinks.sign(requestId, row.id, expiresAt) }));
  }

  /** The file a link names, if the link is genuine, unexpired, for this push, and the file still exists. */
  async open(pushId: number, link: string): Promise<StoredFile | null> {
    const fileId = this.links.verify(link, pushId, this.clock.now());
    return this.openRow(fileId === null ? null : await this.repository.findOneForPush(fileId, pushId));
  }

  /** The file of a secret request a link names (either side's: the link, given only to whom may read it, says which). */
  async openForRequest(requestId: number, link: string): Promise<StoredFile | null> {
    const fileId = this.requestLinks.verify(link, requestId, this.clock.now());
    const row = fileId === null ? null : await this.repository.findOneFor(fileId, { requestId, fromResponder: false });
    return this.openRow(row ?? (fileId === null ? null : await this.repository.findOneFor(fileId, { requestId, fromResponder: true })));
  }

  private openRow(row: FileAttachmentEntity | null): StoredFile | null {
    if (!row) return null;
    const streamKey = StreamKey.fromBytes(this.cipher.open(row.streamKey, `file-key:${row.blobKey}`));
    const { blobKey, size } = row;
    return {
      ...this.metaOf(row),
      size,
      // Names the stored file without naming its place in storage.
      etag: `"${createHash('sha256').update(blobKey).digest('base64url').slice(0, 22)}"`,
      read: async (range) => {
        const chunks = chunkRange(size, range?.start, range?.end);
        const stored = await this.store.get(blobKey, { start: chunks.sealedStart, end: chunks.sealedEnd });
        return pipeline(stored, decryptStream(streamKey, size, chunks), this.counter('download'), () => undefined);
      },
    };
  }

  /** Destroys the files of these pushes: blobs first, then their rows. Returns how many. */
  async destroyFor(pushIds: number[]): Promise<number> {
    return this.destroy(await this.repository.blobsOfPushes(pushIds));
  }

  /** Destroys the files of these secret requests, both sides': blobs first, then their rows. Returns how many. */
  async destroyForRequests(requestIds: number[]): Promise<number> {
    return this.destroy(await this.repository.blobsOfRequests(requestIds));
  }

  /** Destroys up to `limit` blobs whose time has come (see keepForLinks, attach, ABANDONED_UPLOAD_MS); returns how many. */
  async destroyDue(limit: number): Promise<number> {
    return this.destroy(await this.repository.dueBlobs(this.clock.now(), limit));
  }

  /** Removes the uploads of a create that failed; those a push took are left alone. Safe to repeat. */
  async discard(batch: UploadBatch): Promise<void> {
    await this.destroy(await this.repository.unattachedBlobs(batch.ids));
  }

  /**
   * Encrypts one file into storage under a new random key, through `limit` (see UploadBatch),
   * which may fail the stream. The row comes first, so that even a process dying mid-way leaves
   * a row naming the blob; returns the row's id.
   */
  async encryptToStorage(file: IncomingFile, limit: Transform): Promise<number> {
    const blobKey = randomToken(24);
    const streamKey = StreamKey.generate();
    const meta = { filename: cleanFilename(file.filename), contentType: cleanContentType(file.contentType, file.filename) };
    const now = this.clock.now();
    const id = await this.repository.insertUpload({
      blobKey,
      meta: this.cipher.seal(Buffer.from(JSON.stringify(meta)), `file-meta:${blobKey}`),
      streamKey: this.cipher.seal(streamKey.toBytes(), `file-key:${blobKey}`),
      createdAt: now,
      destroyAt: now + ABANDONED_UPLOAD_MS,
    });
    let failure: Error | undefined;
    const count = this.counter('upload');
    const sealed = pipeline(file.stream, limit, count, encryptStream(streamKey), (error) => {
      failure ??= error ?? undefined;
    });
    try {
      await this.store.put(blobKey, sealed);
    } catch (error) {
      await this.destroy([{ id, blobKey }]);
      // The pipeline's own error (a limit, the client going away) says more than storage's echo of it.
      throw failure ?? error;
    }
    await this.repository.setSize(id, count.bytes);
    return id;
  }

  /** Blobs first, then their rows: a failure in between leaves rows that a later call destroys again. */
  private async destroy(blobs: BlobRef[]): Promise<number> {
    if (blobs.length === 0) return 0;
    await this.store.delete(blobs.map((blob) => blob.blobKey));
    await this.repository.delete(blobs.map((blob) => blob.id));
    this.metrics.fileBlobsDestroyed(blobs.length);
    return blobs.length;
  }

  /** Counts the plaintext bytes that pass, for the metrics and the caller. */
  private counter(direction: FileDirection): Transform & { bytes: number } {
    const counter = Object.assign(
      new Transform({
        transform: (chunk: Buffer, _encoding, done: TransformCallback) => {
          counter.bytes += chunk.length;
          this.metrics.fileTransferred(direction, chunk.length);
          done(null, chunk);
        },
      }),
      { bytes: 0 },
    );
    return counter;
  }

  private linkExpiry(): number {
    return this.clock.now() + this.settings.files.linkLifetimeSeconds * 1000;
  }

  private metaOf(row: FileAttachmentEntity): { filename: string; contentType: string } {
    return JSON.parse(this.cipher.open(row.meta, `file-meta:${row.blobKey}`).toString('utf8')) as { filename: string; contentType: string };
  }
}

/**
 * The uploads of one create, in arrival order, within the push's limits: the number of files, the
 * size of each and of all together. A file is refused the moment it goes over, while it streams in.
 */
export class UploadBatch {
  readonly ids: number[] = [];
  private started = 0;
  private bytes = 0;
  /** The store of the file before: files are stored one after the other, in the order they came. */
  private previous: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly files: FileAttachments,
    private readonly limits: Settings['files'],
  ) {}

  get count(): number {
    return this.started;
  }

  async add(file: IncomingFile): Promise<void> {
    const { limits } = this;
    if (this.started >= limits.maxUploads) {
      file.stream.resume();
      throw ValidationFailedError.of('files', `Too many files: at most ${limits.maxUploads} per push.`);
    }
    this.started++;
    // After a failure the files behind it fail the same way, without being stored.
    const stored = this.previous.then(() => this.files.encryptToStorage(file, this.limit()));
    this.previous = stored;
    this.ids.push(await stored);
  }

  /** Removes what was stored (see FileAttachments.discard). */
  discard(): Promise<void> {
    return this.files.discard(this);
  }

  /** Counts the file's bytes and the push's as they pass; fails with a 413 at the first byte over either limit. */
  private limit(): Transform {
    const { maxFileBytes, maxPushBytes } = this.limits;
    let fileBytes = 0;
    return new Transform({
      transform: (chunk: Buffer, _encoding, done: TransformCallback) => {
        fileBytes += chunk.length;
        this.bytes += chunk.length;
        if (fileBytes > maxFileBytes) return done(new PayloadTooLargeError(`A file is over the ${formatBytes(maxFileBytes)} limit.`));
        if (this.bytes > maxPushBytes) return done(new PayloadTooLargeError(`The files are over the ${formatBytes(maxPushBytes)} limit of one push.`));
        done(null, chunk);
      },
    });
  }
}

/** Filenames are data: control and formatting characters (which can disguise an extension) removed, no path separators, 255 characters at most. */
export function cleanFilename(name: string): string {
  const cleaned = [...name.replace(/[\p{Cc}\p{Cf}]/gu, '').replace(/[/\\]/g, '_').trim()].slice(0, FILENAME_MAX).join('');
  return cleaned === '' || cleaned === '.' || cleaned === '..' ? 'file' : cleaned;
}

/** A plain `type/subtype`; a vague or malformed one is guessed from the filename instead. */
export function cleanContentType(given: string, filename: string): string {
  const type = given.split(';')[0].trim().toLowerCase();
  if (!VAGUE_CONTENT_TYPES.has(type) && SAFE_CONTENT_TYPE.test(type)) return type;
  return lookup(filename) || (type === 'text/plain' ? type : 'application/octet-stream');
}
