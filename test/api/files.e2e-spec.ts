import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { UsersService } from '@app/auth';
import { FileAttachments } from '@app/files';
import { ExpirySweepService, PushExpiry } from '@app/pushes';
import { startBlobBackend, StoredBlobs, type BlobBackend } from '../support/blob-storage';
import { sha256 } from '../support/helpers';
import { client, type ApiClient } from '../support/http';
import { openApiValidator } from '../support/openapi-validator';
import { startTestApp, type TestApp } from '../support/test-app';

const MIB = 1024 * 1024;
/** Five 64 KiB chunks and a bit: the cipher's chunking, ranges across chunks, the last chunk. */
const MULTI_CHUNK = randomBytes(300_001);
const MARKER = 'TOP-SECRET-FILE-MARKER:';
const LINK_LIFETIME_MS = 300_000;

interface UploadFile {
  name: string;
  bytes: Buffer;
  type?: string;
}

/** A create as a multipart form: the fields as push[...] and the files as push[files][] parts. */
function form(fields: Record<string, string>, files: UploadFile[]): FormData {
  const body = new FormData();
  for (const [name, value] of Object.entries(fields)) body.append(`push[${name}]`, value);
  for (const file of files) body.append('push[files][]', new Blob([file.bytes], { type: file.type ?? '' }), file.name);
  return body;
}

interface Download {
  status: number;
  headers: Headers;
  bytes: Buffer;
}

describe.each(['disk', 's3'] as const)('file pushes stored on %s', (storage) => {
  let backend: BlobBackend;
  let app: TestApp;
  let api: ApiClient;
  let owner: Record<string, string>;
  let blobs: StoredBlobs;

  beforeAll(async () => {
    backend = await startBlobBackend(storage);
    app = await startTestApp({ ...backend.env, PWP__FILES__MAX_FILE_SIZE: '1MiB', PWP__FILES__MAX_PUSH_SIZE: '2MiB' });
    api = client(app.baseUrl);
    owner = { authorization: `Bearer ${await app.createUser(`files-${storage}@example.com`)}` };
    blobs = new StoredBlobs(app.settings.files.storage);
  });
  afterAll(async () => {
    blobs.close();
    await app.close({ drop: true });
    await backend.stop();
  });

  /** POSTs a form (through the response validator, as every e2e request is). */
  async function postForm(body: FormData, headers: Record<string, string> = owner) {
    const response = await fetch(`${app.baseUrl}/api/v2/pushes`, { method: 'POST', body, headers });
    const text = await response.text();
    const parsed = JSON.parse(text) as Record<string, any>;
    openApiValidator().assert({ method: 'POST', path: '/api/v2/pushes', status: response.status, headers: response.headers, body: parsed, text });
    return { status: response.status, body: parsed };
  }

  async function createFilePush(files: UploadFile[], fields: Record<string, string> = {}): Promise<string> {
    const { status, body } = await postForm(form({ kind: 'file', ...fields }, files));
    expect([status, body.error]).toEqual([201, undefined]);
    return body.url_token as string;
  }

  async function retrieve(urlToken: string) {
    const { status, body } = await api.get(`/api/v2/pushes/${urlToken}`);
    expect(status).toBe(200);
    return body as { payload: string | null; expired: boolean; files: { filename: string; content_type: string; size: number; url: string }[] };
  }

  async function download(url: string, headers: Record<string, string> = {}): Promise<Download> {
    const response = await fetch(url, { headers });
    const bytes = Buffer.from(await response.arrayBuffer());
    const json = response.headers.get('content-type')?.startsWith('application/json') ? (JSON.parse(bytes.toString()) as unknown) : undefined;
    openApiValidator().assert({ method: 'GET', path: new URL(url).pathname, status: response.status, headers: response.headers, body: json, text: json ? bytes.toString() : '' });
    return { status: response.status, headers: response.headers, bytes };
  }

  /** The blobs a step added to storage. */
  async function blobsAddedBy(step: () => Promise<unknown>): Promise<Map<string, Buffer>> {
    const before = await blobs.all();
    await step();
    const after = await blobs.all();
    return new Map([...after].filter(([key]) => !before.has(key)));
  }

  const fileRows = async (): Promise<number> => Number((await app.query('SELECT COUNT(*) AS n FROM file_attachments'))[0].n);
  const sweep = () => app.service(ExpirySweepService).sweep();

  it('stores multipart files encrypted and serves them back byte for byte, as attachments', async () => {
    const files = [
      { name: 'empty.bin', bytes: Buffer.alloc(0) },
      { name: 'one.txt', bytes: Buffer.from('x'), type: 'text/plain' },
      { name: 'Überweisung 2026.pdf', bytes: MULTI_CHUNK, type: 'application/pdf' },
    ];
    let urlToken = '';
    const added = await blobsAddedBy(async () => (urlToken = await createFilePush(files, { payload: 'see attached', expire_after_views: '3' })));
    expect(added.size).toBe(3);

    const pushed = await retrieve(urlToken);
    expect(pushed.payload).toBe('see attached');
    expect(pushed.files.map(({ url: _url, ...file }) => file)).toEqual([
      { filename: 'empty.bin', content_type: 'application/octet-stream', size: 0 },
      { filename: 'one.txt', content_type: 'text/plain', size: 1 },
      { filename: 'Überweisung 2026.pdf', content_type: 'application/pdf', size: MULTI_CHUNK.length },
    ]);
    for (const [i, file] of pushed.files.entries()) {
      expect(file.url).toMatch(new RegExp(`^${app.baseUrl}/api/v2/pushes/${urlToken}/files/[\\w-]{39}$`));
      const got = await download(file.url);
      expect(got.status).toBe(200);
      expect(sha256(got.bytes)).toBe(sha256(files[i].bytes));
      expect(got.headers.get('content-length')).toBe(String(files[i].bytes.length));
      expect(got.headers.get('x-content-type-options')).toBe('nosniff');
      expect(got.headers.get('cache-control')).toBe('no-store');
    }
    const pdf = await download(pushed.files[2].url);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect(pdf.headers.get('content-disposition')).toBe(`attachment; filename="?berweisung 2026.pdf"; filename*=UTF-8''%C3%9Cberweisung%202026.pdf`);

    const audit = await api.get(`/api/v2/pushes/${urlToken}/audit`, owner);
    expect(audit.body.logs.map((entry: { kind: string }) => entry.kind)).toEqual(['creation', 'view', ...Array(4).fill('file_download')]);
  });

  it('accepts base64 files in a JSON body', async () => {
    const bytes = randomBytes(70_000);
    const created = await api.post(
      '/api/v2/pushes',
      { push: { files: [{ filename: 'notes.txt', data: Buffer.from('hello\n').toString('base64') }, { filename: 'key.bin', content_type: 'application/x-keys', data: bytes.toString('base64') }] } },
      owner,
    );
    expect(created.body).toMatchObject({ kind: 'file' });
    const { files } = await retrieve(created.body.url_token);
    expect(files.map((file) => [file.filename, file.content_type, file.size])).toEqual([
      ['notes.txt', 'text/plain', 6],
      ['key.bin', 'application/x-keys', bytes.length],
    ]);
    expect((await download(files[0].url)).bytes.toString()).toBe('hello\n');
    expect(sha256((await download(files[1].url)).bytes)).toBe(sha256(bytes));
  });

  it('takes a form with nothing but files as a file push', async () => {
    const { status, body } = await postForm(form({}, [{ name: 'only.txt', bytes: Buffer.from('only') }]));
    expect([status, body.kind]).toEqual([201, 'file']);
    expect((await download((await retrieve(body.url_token as string)).files[0].url)).bytes.toString()).toBe('only');
  });

  it('counts the bytes uploaded and downloaded, and the blobs destroyed, in /metrics', async () => {
    const metric = async (name: string) => {
      const text = await (await fetch(`${app.baseUrl}/metrics`)).text();
      return Number(new RegExp(`^${name.replace(/[{}"]/g, '\\$&')} (\\d+)$`, 'm').exec(text)?.[1]);
    };
    const [up, down, destroyed] = await Promise.all(['pwpush_file_bytes_total{direction="upload"}', 'pwpush_file_bytes_total{direction="download"}', 'pwpush_file_blobs_destroyed_total'].map(metric));
    const token = await createFilePush([{ name: 'm.bin', bytes: randomBytes(1000) }]);
    await download((await retrieve(token)).files[0].url);
    await api.delete(`/api/v2/pushes/${token}`, owner);
    expect(await metric('pwpush_file_bytes_total{direction="upload"}')).toBe(up + 1000);
    expect(await metric('pwpush_file_bytes_total{direction="download"}')).toBe(down + 1000);
    expect(await metric('pwpush_file_blobs_destroyed_total')).toBe(destroyed + 1);
  });

  it('answers Range requests so a download can resume', async () => {
    const { files } = await retrieve(await createFilePush([{ name: 'big.bin', bytes: MULTI_CHUNK }]));
    const url = files[0].url;
    const size = MULTI_CHUNK.length;
    for (const [range, start, end] of [
      ['bytes=100-199', 100, 199],
      ['bytes=65530-131080', 65_530, 131_080],
      ['bytes=-10', size - 10, size - 1],
      [`bytes=${size - 1}-`, size - 1, size - 1],
    ] as const) {
      const part = await download(url, { range });
      expect([range, part.status, part.headers.get('content-range')]).toEqual([range, 206, `bytes ${start}-${end}/${size}`]);
      expect(part.bytes.equals(MULTI_CHUNK.subarray(start, end + 1))).toBe(true);
    }
    const past = await download(url, { range: `bytes=${size}-` });
    expect([past.status, past.headers.get('content-range')]).toEqual([416, `bytes */${size}`]);
    const stale = await download(url, { range: 'bytes=0-9', 'if-range': '"another-version"' });
    expect([stale.status, stale.bytes.length]).toEqual([200, size]);
  });

  it('never keeps a filename or a byte of plaintext in storage', async () => {
    const secret = Buffer.from(MARKER.repeat(5_000));
    const added = await blobsAddedBy(() => createFilePush([{ name: 'payroll-secret-name.csv', bytes: secret }]));
    const needles = [MARKER, 'payroll-secret-name', Buffer.from(MARKER).toString('base64').slice(0, 20), Buffer.from(MARKER).toString('hex')];
    for (const [key, bytes] of added) {
      expect(key).not.toContain('payroll');
      for (const needle of needles) expect([key, needle, bytes.includes(needle)]).toEqual([key, needle, false]);
    }
    const rows: { meta: Buffer; stream_key: Buffer }[] = await app.query('SELECT meta, stream_key FROM file_attachments');
    for (const row of rows) expect(Buffer.from(row.meta).includes('payroll-secret-name')).toBe(false);
  });

  it('refuses an eleventh file with a 422 and keeps nothing', async () => {
    const rows = await fileRows();
    const files = Array.from({ length: 11 }, (_, i) => ({ name: `f${i}.txt`, bytes: Buffer.from(`file ${i}`) }));
    const added = await blobsAddedBy(async () => {
      const { status, body } = await postForm(form({ kind: 'file' }, files));
      expect([status, body]).toEqual([422, { error: 'Too many files: at most 10 per push.', errors: { files: ['Too many files: at most 10 per push.'] } }]);
    });
    expect(added.size).toBe(0);
    expect(await fileRows()).toBe(rows);
  });

  it('keeps nothing of a multipart create whose other fields fail validation', async () => {
    const rows = await fileRows();
    const added = await blobsAddedBy(async () => {
      const { status, body } = await postForm(form({ kind: 'file', expire_after_views: 'many' }, [{ name: 'a.txt', bytes: Buffer.from('received, then refused') }]));
      expect([status, body]).toEqual([422, { error: 'Expire after views must be an integer.', errors: { expire_after_views: ['Expire after views must be an integer.'] } }]);
      // The files go as the answer does: wait for them.
      for (let waited = 0; (await fileRows()) !== rows && waited < 5000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
    });
    expect(added.size).toBe(0);
    expect(await fileRows()).toBe(rows);
  });

  it('refuses a file over the size limit while it streams in, keeps nothing and goes on serving', async () => {
    const rows = await fileRows();
    // Far larger than the limit, so "long before the end" holds with room for a loaded machine,
    // where the client may write several MiB more before it reads the answer (9.3 MiB seen).
    const declared = 64 * MIB;
    let sent = 0;
    const added = await blobsAddedBy(async () => {
      const answer = await streamOversizedUpload(app.baseUrl, owner, declared, (bytes) => (sent = bytes));
      expect(answer).toEqual({ status: 413, body: { error: 'A file is over the 1MiB limit.' } });
    });
    // Refused after the limit, long before the end of the body.
    expect(sent).toBeGreaterThan(MIB);
    expect(sent).toBeLessThan(declared / 2);
    expect(added.size).toBe(0);
    expect(await fileRows()).toBe(rows);
    expect((await api.get('/api/v2/version')).status).toBe(200);
    expect(await createFilePush([{ name: 'after.txt', bytes: Buffer.from('still serving') }])).toBeTruthy();
  });

  it('refuses files that together are over the limit of one push', async () => {
    const files = Array.from({ length: 3 }, (_, i) => ({ name: `part${i}.bin`, bytes: randomBytes(900 * 1024) }));
    const added = await blobsAddedBy(async () => {
      expect(await postForm(form({ kind: 'file' }, files))).toEqual({ status: 413, body: { error: 'The files are over the 2MiB limit of one push.' } });
    });
    expect(added.size).toBe(0);
  });

  it('needs authentication before anything else about files', async () => {
    const added = await blobsAddedBy(async () => {
      const multipart = await postForm(form({ kind: 'file' }, [{ name: 'a.txt', bytes: Buffer.from('a') }]), {});
      expect(multipart).toEqual({ status: 401, body: { error: 'File pushes require authentication.' } });
      const json = await api.post('/api/v2/pushes', { push: { files: [{ filename: 'a.txt', data: 'YQ==' }] } });
      expect(json.status).toBe(401);
    });
    expect(added.size).toBe(0);
  });

  it('answers 404, and nothing more, for forged, altered, foreign and lapsed links', async () => {
    const mine = await createFilePush([{ name: 'a.txt', bytes: Buffer.from('mine') }], { expire_after_views: '5' });
    const other = await createFilePush([{ name: 'b.txt', bytes: Buffer.from('other') }], { expire_after_views: '5' });
    const [{ url }] = (await retrieve(mine)).files;
    const link = url.split('/').pop()!;
    const altered = `${link.slice(0, 10)}${link[10] === 'A' ? 'B' : 'A'}${link.slice(11)}`;
    for (const path of [
      `/api/v2/pushes/${mine}/files/${altered}`,
      `/api/v2/pushes/${other}/files/${link}`,
      `/api/v2/pushes/${mine}/files/${randomBytes(29).toString('base64url')}`,
      `/api/v2/pushes/${mine}/files/..%2F..%2Fetc%2Fpasswd`,
      `/api/v2/pushes/unknownTokenXYZunknownTok/files/${link}`,
    ]) {
      const got = await download(`${app.baseUrl}${path}`);
      expect([path, got.status, got.bytes.toString()]).toEqual([path, 404, '{"error":"not-found"}']);
    }
    expect((await download(url)).bytes.toString()).toBe('mine');
    app.clock.advance(LINK_LIFETIME_MS + 1000);
    expect((await download(url)).status).toBe(404);
  });

  it('fails a download cleanly when the stored ciphertext was altered', async () => {
    let token = '';
    const [[key]] = [...(await blobsAddedBy(async () => (token = await createFilePush([{ name: 'x.bin', bytes: MULTI_CHUNK }], { expire_after_views: '5' }))))];
    // A flipped bit in the first chunk: nothing is sent but an error.
    await blobs.alter(key, (bytes) => Buffer.concat([bytes.subarray(0, 10), Buffer.of(bytes[10] ^ 1), bytes.subarray(11)]));
    const first = await download((await retrieve(token)).files[0].url);
    expect([first.status, first.bytes.toString()]).toEqual([500, '{"error":"internal-error"}']);

    // In the last chunk: the answer has begun, so it is cut short; no byte of the altered chunk is given.
    const [[lastKey]] = [...(await blobsAddedBy(async () => (token = await createFilePush([{ name: 'y.bin', bytes: MULTI_CHUNK }], { expire_after_views: '5' }))))];
    await blobs.alter(lastKey, (bytes) => Buffer.concat([bytes.subarray(0, -5), Buffer.of(bytes[bytes.length - 5] ^ 1), bytes.subarray(-4)]));
    const response = await fetch((await retrieve(token)).files[0].url);
    expect(response.status).toBe(200);
    await expect(response.arrayBuffer()).rejects.toThrow();
    expect((await api.get('/api/v2/version')).status).toBe(200);
  });

  it("keeps the last view's links working for their lifetime, then the sweep destroys the files", async () => {
    let token = '';
    const added = await blobsAddedBy(async () => (token = await createFilePush([{ name: 'once.txt', bytes: Buffer.from('only once') }], { expire_after_views: '1' })));
    const { files } = await retrieve(token);
    expect((await retrieve(token)).expired).toBe(true);
    expect((await retrieve(token)).files).toEqual([]);
    expect((await download(files[0].url)).bytes.toString()).toBe('only once');

    expect((await sweep()).filesDestroyed).toBe(0);
    app.clock.advance(LINK_LIFETIME_MS + 1000);
    expect((await download(files[0].url)).status).toBe(404);
    expect((await sweep()).filesDestroyed).toBeGreaterThanOrEqual(1);
    const left = await blobs.all();
    expect([...added.keys()].filter((key) => left.has(key))).toEqual([]);
  });

  it('destroys the files at once when the push is deleted', async () => {
    let token = '';
    const added = await blobsAddedBy(async () => (token = await createFilePush([{ name: 'd.txt', bytes: Buffer.from('delete me') }], { expire_after_views: '5' })));
    const { files } = await retrieve(token);
    expect((await api.delete(`/api/v2/pushes/${token}`, owner)).body).toMatchObject({ expired: true, deleted: true });
    const left = await blobs.all();
    expect([...added.keys()].filter((key) => left.has(key))).toEqual([]);
    expect((await download(files[0].url)).status).toBe(404);
  });

  it('destroys the files when the push runs out of days', async () => {
    let token = '';
    const added = await blobsAddedBy(async () => (token = await createFilePush([{ name: 'day.txt', bytes: Buffer.from('one day') }], { expire_after_days: '1' })));
    app.clock.advance(24 * 60 * 60 * 1000);
    const result = await sweep();
    expect(result.expired).toBeGreaterThanOrEqual(1);
    const left = await blobs.all();
    expect([...added.keys()].filter((key) => left.has(key))).toEqual([]);
    expect((await retrieve(token)).expired).toBe(true);
  });

  it("destroys the files of a user whose account is deleted", async () => {
    const email = `leaving-${storage}@example.com`;
    const leaving = { authorization: `Bearer ${await app.createUser(email)}` };
    const added = await blobsAddedBy(() => postForm(form({}, [{ name: 'x.txt', bytes: Buffer.from('x') }]), leaving));
    expect(added.size).toBe(1);
    const users = app.service(UsersService);
    await app.service(PushExpiry).expireAllOwnedBy((await users.find(email)).id);
    await users.delete(email);
    expect((await blobs.all()).has([...added.keys()][0])).toBe(false);
  });

  it('removes an upload a dead process left behind, a day after it began', async () => {
    const files = app.service(FileAttachments);
    const added = await blobsAddedBy(async () => {
      const { Readable } = await import('node:stream');
      await files.uploads().add({ filename: 'orphan.txt', contentType: 'text/plain', stream: Readable.from([Buffer.from('orphan')]) });
    });
    expect(added.size).toBe(1);
    await sweep();
    expect((await blobs.all()).has([...added.keys()][0])).toBe(true);
    app.clock.advance(24 * 60 * 60 * 1000 + 1000);
    await sweep();
    expect((await blobs.all()).has([...added.keys()][0])).toBe(false);
  });

  it('serves the files of a one-view push to exactly one of many simultaneous retrievals', async () => {
    const token = await createFilePush([{ name: 'race.txt', bytes: Buffer.from('race winner') }], { expire_after_views: '1' });
    const results = await Promise.all(Array.from({ length: 20 }, () => api.get(`/api/v2/pushes/${token}`)));
    const served = results.filter((result) => result.body.files.length > 0);
    expect(served).toHaveLength(1);
    expect(results.filter((result) => result.body.expired === true && result.body.files.length === 0)).toHaveLength(19);
    expect((await download(served[0].body.files[0].url)).bytes.toString()).toBe('race winner');
  });
});

/**
 * Sends a multipart create whose one file declares `size` bytes, 64 KiB at a time, until the
 * server answers; reports how much it had sent by then. The server must answer without waiting
 * for the rest of the body.
 */
function streamOversizedUpload(baseUrl: string, headers: Record<string, string>, size: number, onSent: (bytes: number) => void) {
  const boundary = 'pwpush-e2e-boundary';
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="push[kind]"\r\n\r\nfile\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="push[files][]"; filename="huge.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const chunk = randomBytes(64 * 1024);
  return new Promise<{ status: number; body: unknown }>((resolve, reject) => {
    let sent = 0;
    let answered = false;
    const req = httpRequest(`${baseUrl}/api/v2/pushes`, {
      method: 'POST',
      headers: { ...headers, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(head.length + size + tail.length) },
    });
    req.on('response', (res) => {
      answered = true;
      onSent(sent);
      let text = '';
      res.on('data', (data: Buffer) => (text += data.toString()));
      res.on('end', () => {
        req.destroy();
        resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as unknown });
      });
    });
    req.on('error', (error) => (answered ? undefined : reject(error)));
    req.write(head);
    const pump = () => {
      if (answered || sent >= size) return;
      sent += chunk.length;
      req.write(chunk, () => setImmediate(pump));
    };
    pump();
  });
}
