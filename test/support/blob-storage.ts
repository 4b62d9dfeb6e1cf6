import {
  GetObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { Env, Settings } from '@app/config';
import { freePort } from './helpers';

/** Built by scripts/install-versitygw.sh (npm test and .ci/run call it). */
const VERSITYGW = join(__dirname, '..', '..', '.cache', 'bin', 'versitygw');
const ACCESS_KEY = 'pwpush-e2e';
const SECRET_KEY = 'pwpush-e2e-secret';
const BUCKET = 'pwpush-files';

/** Where a test app keeps file blobs: its DATA_DIR (the default), or a real S3 server. */
export interface BlobBackend {
  name: 'disk' | 's3';
  /** Settings for the app. */
  env: Env;
  stop(): Promise<void>;
}

export async function startBlobBackend(name: BlobBackend['name']): Promise<BlobBackend> {
  if (name === 'disk') return { name, env: {}, stop: async () => undefined };
  return startVersitygw();
}

/**
 * versitygw serving S3 from a temporary directory (its POSIX backend: a bucket is a directory)
 * on a free local port, until stop().
 */
async function startVersitygw(): Promise<BlobBackend> {
  if (!existsSync(VERSITYGW)) throw new Error(`${VERSITYGW} is missing: run bash scripts/install-versitygw.sh (npm test does).`);
  const dir = mkdtempSync(join(tmpdir(), 'pwpush-s3-'));
  mkdirSync(join(dir, BUCKET));
  const port = await freePort();
  const child = spawn(VERSITYGW, ['--access', ACCESS_KEY, '--secret', SECRET_KEY, '--port', `127.0.0.1:${port}`, 'posix', dir], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let output = '';
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const endpoint = `http://127.0.0.1:${port}`;
  await waitUntilServing(endpoint, child, () => output);
  return {
    name: 's3',
    env: {
      PWP__FILES__STORAGE: 'amazon',
      PWP__FILES__S3__ENDPOINT: endpoint,
      PWP__FILES__S3__BUCKET: BUCKET,
      PWP__FILES__S3__FORCE_PATH_STYLE: 'true',
      PWP__FILES__S3__ACCESS_KEY_ID: ACCESS_KEY,
      PWP__FILES__S3__SECRET_ACCESS_KEY: SECRET_KEY,
      PWP__FILES__S3__PREFIX: 'e2e/',
    },
    stop: async () => {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await new Promise((resolve) => child.once('exit', resolve));
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function waitUntilServing(endpoint: string, child: ChildProcess, output: () => string): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    if (child.exitCode !== null) throw new Error(`versitygw exited: ${output()}`);
    try {
      await fetch(endpoint);
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error(`versitygw did not answer: ${output()}`);
}

/** The stored blobs of an app, read behind its back: what an attacker with the disk or the bucket sees. */
export class StoredBlobs {
  private readonly s3?: S3Client;

  constructor(private readonly storage: Settings['files']['storage']) {
    if (storage.type === 's3') {
      this.s3 = new S3Client({ region: storage.region, endpoint: storage.endpoint, forcePathStyle: storage.forcePathStyle, credentials: storage.credentials });
    }
  }

  /** Every blob's key and bytes; on S3 also fails if an unfinished multipart upload is left. */
  async all(): Promise<Map<string, Buffer>> {
    const blobs = new Map<string, Buffer>();
    const { storage } = this;
    if (storage.type === 'local') {
      if (!existsSync(storage.dir)) return blobs;
      for (const entry of readdirSync(storage.dir, { recursive: true, withFileTypes: true })) {
        if (entry.isFile()) blobs.set(relative(storage.dir, join(entry.parentPath, entry.name)), readFileSync(join(entry.parentPath, entry.name)));
      }
      return blobs;
    }
    const listed = await this.s3!.send(new ListObjectsV2Command({ Bucket: storage.bucket, Prefix: storage.prefix }));
    for (const object of listed.Contents ?? []) {
      const body = await this.s3!.send(new GetObjectCommand({ Bucket: storage.bucket, Key: object.Key }));
      blobs.set(object.Key!, Buffer.from(await body.Body!.transformToByteArray()));
    }
    const uploads = await this.s3!.send(new ListMultipartUploadsCommand({ Bucket: storage.bucket }));
    if ((uploads.Uploads ?? []).length > 0) blobs.set('unfinished multipart uploads', Buffer.from(String(uploads.Uploads!.length)));
    return blobs;
  }

  /** Rewrites a blob in place, as an attacker with write access to storage could. */
  async alter(key: string, change: (bytes: Buffer) => Buffer): Promise<void> {
    const bytes = (await this.all()).get(key);
    if (!bytes) throw new Error(`no blob ${key}`);
    const { storage } = this;
    if (storage.type === 'local') writeFileSync(join(storage.dir, key), change(bytes));
    else await this.s3!.send(new PutObjectCommand({ Bucket: storage.bucket, Key: key, Body: change(bytes) }));
  }

  close(): void {
    this.s3?.destroy();
  }
}
