import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { NotFoundError } from '@app/common';
import { BlobStore, type ByteRange } from './blob-store';

/** Blobs as files under one directory (`<DATA_DIR>/files`), fanned out by the key's first two characters. */
export class DiskBlobStore extends BlobStore {
  constructor(private readonly dir: string) {
    super();
  }

  async put(key: string, body: Readable): Promise<void> {
    const path = this.pathOf(key);
    await mkdir(join(path, '..'), { recursive: true, mode: 0o700 });
    try {
      await pipeline(body, createWriteStream(path, { flags: 'wx', mode: 0o600 }));
    } catch (error) {
      await rm(path, { force: true });
      throw error;
    }
  }

  get(key: string, range?: ByteRange): Promise<Readable> {
    const stream = createReadStream(this.pathOf(key), range);
    // Resolve once the file is open, so a missing blob (destroyed a moment ago) is a 404 here rather than an error mid-response.
    return new Promise((resolve, reject) => {
      stream.once('open', () => resolve(stream));
      stream.once('error', (error: NodeJS.ErrnoException) => reject(error.code === 'ENOENT' ? new NotFoundError() : error));
    });
  }

  async delete(keys: string[]): Promise<void> {
    await Promise.all(keys.map((key) => rm(this.pathOf(key), { force: true })));
  }

  private pathOf(key: string): string {
    if (!/^[\w-]{8,64}$/.test(key)) throw new Error('A blob key is 8 to 64 URL-safe characters.');
    return join(this.dir, key.slice(0, 2), key);
  }
}
