import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';

/** Plaintext bytes per chunk: small enough to keep memory flat, large enough that tags cost 0.02 %. */
export const CHUNK_BYTES = 64 * 1024;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
const PREFIX_BYTES = 7;
const SEALED_CHUNK_BYTES = CHUNK_BYTES + TAG_BYTES;

/** Raised when a stored stream was altered, truncated, extended or reordered. */
export class StreamIntegrityError extends Error {
  override readonly name = 'StreamIntegrityError';
}

/**
 * The secret of one encrypted stream: a random AES-256 key and a random nonce prefix. It is kept
 * wrapped by the master key ring (see FieldCipher.seal), never beside the ciphertext.
 */
export class StreamKey {
  private constructor(
    readonly key: Buffer,
    readonly prefix: Buffer,
  ) {}

  static generate(): StreamKey {
    return new StreamKey(randomBytes(KEY_BYTES), randomBytes(PREFIX_BYTES));
  }

  static fromBytes(bytes: Buffer): StreamKey {
    if (bytes.length !== KEY_BYTES + PREFIX_BYTES) throw new StreamIntegrityError('A stream key has 39 bytes.');
    return new StreamKey(bytes.subarray(0, KEY_BYTES), bytes.subarray(KEY_BYTES));
  }

  toBytes(): Buffer {
    return Buffer.concat([this.key, this.prefix]);
  }

  /** prefix (7) | chunk index (4, big-endian) | last-chunk flag (1): unique per chunk, and binds its place. */
  nonce(index: number, last: boolean): Buffer {
    const nonce = Buffer.alloc(12);
    this.prefix.copy(nonce, 0);
    nonce.writeUInt32BE(index, PREFIX_BYTES);
    nonce[11] = last ? 1 : 0;
    return nonce;
  }
}

/** How many chunks a plaintext of `size` bytes takes: at least one, so that even an empty file is authenticated. */
export function chunkCount(size: number): number {
  return Math.max(1, Math.ceil(size / CHUNK_BYTES));
}

/** The stored size of a plaintext of `size` bytes. */
export function sealedSize(size: number): number {
  return size + chunkCount(size) * TAG_BYTES;
}

/**
 * Encrypts a byte stream with AES-256-GCM in fixed-size chunks (the STREAM construction): each
 * chunk's nonce carries its index and whether it is the last, so reordering, truncation and
 * extension are all detected on the way back. The last chunk is held back until the input ends.
 */
export function encryptStream(streamKey: StreamKey): Transform {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let index = 0;
  const seal = (plaintext: Buffer, last: boolean): Buffer => {
    const cipher = createCipheriv('aes-256-gcm', streamKey.key, streamKey.nonce(index++, last));
    return Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
  };
  return new Transform({
    transform(chunk: Buffer, _encoding, done: TransformCallback) {
      pending.push(chunk);
      pendingBytes += chunk.length;
      // Strictly more than a chunk: a full chunk with nothing after it may be the last.
      if (pendingBytes > CHUNK_BYTES) {
        let buffered = Buffer.concat(pending, pendingBytes);
        while (buffered.length > CHUNK_BYTES) {
          this.push(seal(buffered.subarray(0, CHUNK_BYTES), false));
          buffered = buffered.subarray(CHUNK_BYTES);
        }
        pending = [buffered];
        pendingBytes = buffered.length;
      }
      done();
    },
    flush(done: TransformCallback) {
      this.push(seal(Buffer.concat(pending, pendingBytes), true));
      done();
    },
  });
}

/** A plaintext byte range (inclusive) and the stored chunks that hold it. */
export interface ChunkRange {
  /** First and last chunk to read, and the offset of the first one's first stored byte. */
  firstChunk: number;
  lastChunk: number;
  sealedStart: number;
  /** Last stored byte to read (inclusive). */
  sealedEnd: number;
  /** Plaintext bytes to drop from the first chunk, and how many to give in all. */
  skip: number;
  length: number;
}

/** Which stored bytes hold plaintext bytes `start`..`end` (inclusive) of a `size`-byte stream. */
export function chunkRange(size: number, start = 0, end = size - 1): ChunkRange {
  const firstChunk = Math.floor(start / CHUNK_BYTES);
  const lastChunk = size === 0 ? 0 : Math.floor(end / CHUNK_BYTES);
  return {
    firstChunk,
    lastChunk,
    sealedStart: firstChunk * SEALED_CHUNK_BYTES,
    sealedEnd: Math.min((lastChunk + 1) * SEALED_CHUNK_BYTES, sealedSize(size)) - 1,
    skip: start - firstChunk * CHUNK_BYTES,
    length: size === 0 ? 0 : end - start + 1,
  };
}

/**
 * Decrypts the stored bytes `range` names (from encryptStream, for a plaintext of `size` bytes)
 * and gives exactly the plaintext bytes asked for. Any chunk that fails its tag, a chunk short or
 * too many, fails the stream with StreamIntegrityError before its plaintext is given out.
 */
export function decryptStream(streamKey: StreamKey, size: number, range: ChunkRange): Transform {
  const finalChunk = chunkCount(size) - 1;
  let index = range.firstChunk;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let toSkip = range.skip;
  let toGive = range.length;
  const open = (sealed: Buffer, last: boolean): Buffer => {
    if (sealed.length < TAG_BYTES) throw new StreamIntegrityError('A stored chunk is too short.');
    const decipher = createDecipheriv('aes-256-gcm', streamKey.key, streamKey.nonce(index++, last));
    decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
    try {
      return Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - TAG_BYTES)), decipher.final()]);
    } catch {
      throw new StreamIntegrityError('A stored chunk failed its integrity check.');
    }
  };
  const give = (stream: Transform, plaintext: Buffer): void => {
    const from = Math.min(toSkip, plaintext.length);
    toSkip -= from;
    const part = plaintext.subarray(from, from + toGive);
    toGive -= part.length;
    if (part.length > 0) stream.push(part);
  };
  return new Transform({
    transform(chunk: Buffer, _encoding, done: TransformCallback) {
      pending.push(chunk);
      pendingBytes += chunk.length;
      try {
        const inner = (): boolean => index < finalChunk && index <= range.lastChunk;
        if (pendingBytes >= SEALED_CHUNK_BYTES && inner()) {
          let buffered = Buffer.concat(pending, pendingBytes);
          while (buffered.length >= SEALED_CHUNK_BYTES && inner()) {
            give(this, open(buffered.subarray(0, SEALED_CHUNK_BYTES), false));
            buffered = buffered.subarray(SEALED_CHUNK_BYTES);
          }
          pending = [buffered];
          pendingBytes = buffered.length;
        }
        done();
      } catch (error) {
        done(error as Error);
      }
    },
    flush(done: TransformCallback) {
      try {
        const rest = Buffer.concat(pending, pendingBytes);
        // What is left is the final chunk when the range reaches it, and nothing otherwise.
        if (range.lastChunk === finalChunk && index === finalChunk) give(this, open(rest, true));
        else if (rest.length > 0) throw new StreamIntegrityError('The stored stream has bytes beyond its chunks.');
        if (index !== range.lastChunk + 1 || toGive !== 0) throw new StreamIntegrityError('The stored stream ended early.');
        done();
      } catch (error) {
        done(error as Error);
      }
    },
  });
}
