import type { Readable } from 'node:stream';

/** Bytes `start` to `end`, both inclusive, as HTTP ranges count them. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * Where encrypted file blobs live: local disk for one replica, S3-compatible storage for several.
 * Keys are random and values are ciphertext only; the store knows nothing else about them.
 */
export abstract class BlobStore {
  /** Stores the stream under `key`; when it fails (the stream errors, storage fails) nothing is left under the key. */
  abstract put(key: string, body: Readable): Promise<void>;

  /** The stored bytes, or a range of them. */
  abstract get(key: string, range?: ByteRange): Promise<Readable>;

  /** Deletes the blobs; keys that do not exist are not an error, so deleting is safe to repeat. */
  abstract delete(keys: string[]): Promise<void>;
}
