import { DeleteObjectsCommand, GetObjectCommand, NoSuchKey, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { Readable } from 'node:stream';
import { NotFoundError } from '@app/common';
import type { FileStorage } from '@app/config';
import { BlobStore, type ByteRange } from './blob-store';

type S3Storage = Extract<FileStorage, { type: 's3' }>;

/** Parts of a multipart upload; two in flight per upload bound its memory to 16 MiB whatever the file's size. */
const PART_BYTES = 8 * 1024 * 1024;
const PARTS_IN_FLIGHT = 2;
/** DeleteObjects takes at most 1,000 keys. */
const DELETE_BATCH = 1000;

/** Blobs as objects in an S3-compatible bucket, for any number of replicas. */
export class S3BlobStore extends BlobStore {
  private readonly client: S3Client;

  constructor(private readonly storage: S3Storage) {
    super();
    this.client = new S3Client({
      region: storage.region,
      endpoint: storage.endpoint,
      forcePathStyle: storage.forcePathStyle,
      credentials: storage.credentials,
    });
  }

  async put(key: string, body: Readable): Promise<void> {
    // Streams in parts of PART_BYTES; a failure aborts the multipart upload, leaving no parts behind.
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.storage.bucket, Key: this.objectKey(key), Body: body, ContentType: 'application/octet-stream' },
      partSize: PART_BYTES,
      queueSize: PARTS_IN_FLIGHT,
      leavePartsOnError: false,
    });
    await upload.done();
  }

  async get(key: string, range?: ByteRange): Promise<Readable> {
    try {
      const object = await this.client.send(
        new GetObjectCommand({ Bucket: this.storage.bucket, Key: this.objectKey(key), Range: range ? `bytes=${range.start}-${range.end}` : undefined }),
      );
      return object.Body as Readable;
    } catch (error) {
      // A blob destroyed a moment ago.
      if (error instanceof NoSuchKey) throw new NotFoundError();
      throw error;
    }
  }

  async delete(keys: string[]): Promise<void> {
    for (let i = 0; i < keys.length; i += DELETE_BATCH) {
      const batch = keys.slice(i, i + DELETE_BATCH);
      const result = await this.client.send(
        new DeleteObjectsCommand({ Bucket: this.storage.bucket, Delete: { Objects: batch.map((key) => ({ Key: this.objectKey(key) })), Quiet: true } }),
      );
      const failed = (result.Errors ?? []).filter((error) => error.Code !== 'NoSuchKey');
      if (failed.length > 0) throw new Error(`S3 refused to delete ${failed.length} object(s): ${failed[0].Code ?? 'unknown error'}.`);
    }
  }

  /** Closes the client's connections (Nest calls it at shutdown). */
  onApplicationShutdown(): void {
    this.client.destroy();
  }

  private objectKey(key: string): string {
    return `${this.storage.prefix}${key}`;
  }
}
