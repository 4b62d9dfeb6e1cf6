import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { mkdir, open, rm } from 'node:fs/promises';
import { type IncomingMessage, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Engine, FileScenario } from './options';
import { progress, type ProcessMonitor } from './processes';

/**
 * The file scenarios: one large file sent through the service (a multipart create, then a GET of
 * the signed download link), a few rounds each, timed whole, beside a floor of the same bytes
 * copied to the same storage by a bare Node stream pipeline. Nothing here holds the file in
 * memory: it is generated to disk once and streamed from there.
 */

const MIB = 1024 * 1024;
const FILE_FIELD = 'push[files][]';
const FILENAME = 'bench.bin';

export interface SourceFile {
  path: string;
  bytes: number;
  sha256: string;
  remove(): void;
}

/** Random bytes written to a temporary file, 1 MiB at a time, hashed on the way. */
export async function createSourceFile(mib: number): Promise<SourceFile> {
  const dir = mkdtempSync(join(tmpdir(), 'pwpush-bench-file-'));
  const path = join(dir, FILENAME);
  const hash = createHash('sha256');
  const handle = await open(path, 'wx', 0o600);
  try {
    for (let i = 0; i < mib; i++) {
      const chunk = randomBytes(MIB);
      hash.update(chunk);
      await handle.write(chunk);
    }
  } finally {
    await handle.close();
  }
  return { path, bytes: mib * MIB, sha256: hash.digest('hex'), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A user made with the service's CLI, as an operator would; its API token authenticates file creates. */
export async function createApiToken(cliMain: string, env: NodeJS.ProcessEnv, email = 'bench@example.com'): Promise<string> {
  const stdout = await new Promise<string>((resolve, reject) =>
    execFile(process.execPath, [cliMain, 'users:create', '--email', email], { env }, (error, out, err) =>
      error ? reject(new Error(`users:create failed: ${error.message}\n${err}`)) : resolve(out),
    ),
  );
  for (const line of stdout.trim().split('\n').reverse()) {
    try {
      const parsed = JSON.parse(line) as { api_token?: unknown };
      if (typeof parsed.api_token === 'string') return parsed.api_token;
    } catch {
      // not the JSON line
    }
  }
  throw new Error(`users:create printed no api_token: ${stdout.slice(0, 300)}`);
}

/** Discards what it is given (as /dev/null would, without the system calls), counting and optionally hashing it. */
class Sink extends Writable {
  bytes = 0;
  private readonly hash;

  constructor(hashing: boolean) {
    super({ highWaterMark: MIB });
    this.hash = hashing ? createHash('sha256') : undefined;
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.bytes += chunk.length;
    this.hash?.update(chunk);
    callback();
  }

  sha256(): string | undefined {
    return this.hash?.digest('hex');
  }
}

async function textOf(response: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

const seconds = (since: number) => (performance.now() - since) / 1000;

/**
 * POST /api/v2/pushes as multipart/form-data: the two fields, then the file part streamed from
 * disk, with a Content-Length (so no chunked encoding). Timed from the request's start to the end
 * of the answer.
 */
async function upload(baseUrl: string, token: string, source: SourceFile, views: number): Promise<{ urlToken: string; seconds: number }> {
  const boundary = `pwpush-bench-${randomBytes(12).toString('hex')}`;
  const field = (name: string, value: string) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  const head = Buffer.from(
    field('push[kind]', 'file') +
      field('push[expire_after_views]', String(views)) +
      `--${boundary}\r\nContent-Disposition: form-data; name="${FILE_FIELD}"; filename="${FILENAME}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const started = performance.now();
  const request = httpRequest(`${baseUrl}/api/v2/pushes`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': `multipart/form-data; boundary=${boundary}`,
      'content-length': String(head.length + source.bytes + tail.length),
      accept: 'application/json',
    },
  });
  const answered = new Promise<IncomingMessage>((resolve, reject) => {
    request.once('response', resolve);
    request.once('error', reject);
  });
  // The body's own failure (say, EPIPE after an early refusal) matters only if no answer came.
  const sent = pipeline(async function* () {
    yield head;
    yield* createReadStream(source.path);
    yield tail;
  }, request).then(
    () => undefined,
    (error: unknown) => error,
  );
  let response: IncomingMessage;
  try {
    response = await answered;
  } catch (error) {
    throw new Error(`upload failed: ${String((await sent) ?? error)}`);
  }
  const text = await textOf(response);
  const elapsed = seconds(started);
  await sent;
  let body: { url_token?: unknown } = {};
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    // reported below
  }
  if (response.statusCode !== 201 || typeof body.url_token !== 'string')
    throw new Error(`upload answered ${response.statusCode}: ${text.slice(0, 300)}`);
  return { urlToken: body.url_token, seconds: elapsed };
}

/** Retrieves the push (one view) for a fresh signed link to its only file. */
async function linkOf(baseUrl: string, urlToken: string, bytes: number): Promise<string> {
  const response = await fetch(`${baseUrl}/api/v2/pushes/${urlToken}`, { headers: { accept: 'application/json' } });
  const body = (await response.json()) as { files?: { size?: number; url?: string }[] };
  const file = body.files?.[0];
  if (response.status !== 200 || body.files?.length !== 1 || typeof file?.url !== 'string') {
    throw new Error(`retrieving the file push answered ${response.status}: ${JSON.stringify(body).slice(0, 300)}`);
  }
  if (file.size !== bytes) throw new Error(`the file push lists ${file.size} bytes, not ${bytes}`);
  return file.url;
}

/** GET of a download link, the body drained (and hashed if asked); timed to the last byte. */
async function download(url: string, bytes: number, hashing: boolean): Promise<{ seconds: number; sha256?: string }> {
  const started = performance.now();
  const response = await new Promise<IncomingMessage>((resolve, reject) => httpRequest(url, resolve).once('error', reject).end());
  if (response.statusCode !== 200) throw new Error(`download answered ${response.statusCode}: ${(await textOf(response)).slice(0, 300)}`);
  const sink = new Sink(hashing);
  await pipeline(response, sink);
  const elapsed = seconds(started);
  if (sink.bytes !== bytes || response.headers['content-length'] !== String(bytes)) {
    throw new Error(`download gave ${sink.bytes} bytes (Content-Length ${response.headers['content-length']}), not ${bytes}`);
  }
  return { seconds: elapsed, sha256: sink.sha256() };
}

async function deletePush(baseUrl: string, token: string, urlToken: string): Promise<void> {
  const response = await fetch(`${baseUrl}/api/v2/pushes/${urlToken}`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } });
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`deleting a file push answered ${response.status}`);
}

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((entry) => (entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)]));
}

export interface FileTimings {
  /** Wall time of each round, in seconds. */
  seconds: number[];
  medianSeconds: number;
  /** Bytes moved in a round (the plaintext file through the service; the file as stored for the floor). */
  bytes: number;
  /** bytes ÷ median seconds, in MiB/s. */
  mibPerSecond: number;
}

export interface FileResult {
  engine: Engine;
  scenario: FileScenario;
  fileBytes: number;
  rounds: number;
  service: FileTimings & {
    /** RSS when the scenario began, then the highest sampled (every 100 ms) during it. */
    rssAtStartMb: number;
    peakRssMb: number;
    /** Server CPU time (user + system) per GiB moved, over the scenario's service rounds. */
    cpuSecondsPerGib: number;
  };
  floor: FileTimings & { what: string };
  /** service MiB/s ÷ floor MiB/s. */
  ratio: number;
  /** download: the SHA-256 of a download (an unmeasured round before the timed ones) equals the source's. */
  verifiedSha256?: string;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

function timings(rounds: number[], bytes: number): FileTimings {
  const medianSeconds = median(rounds);
  return { seconds: rounds, medianSeconds, bytes, mibPerSecond: bytes / MIB / medianSeconds };
}

export interface FileRun {
  engine: Engine;
  baseUrl: string;
  apiToken: string;
  /** The service's DATA_DIR/files: its blobs, and the floor's copies beside them. */
  filesDir: string;
  monitor: ProcessMonitor;
  source: SourceFile;
  rounds: number;
}

/** Runs a file scenario: service and floor rounds alternate, so that a burst of load elsewhere falls on both. */
export async function measureFiles(scenario: FileScenario, run: FileRun): Promise<FileResult> {
  const { baseUrl, apiToken, source, monitor, rounds } = run;
  const floorDir = join(run.filesDir, 'bench-floor');
  await mkdir(floorDir, { recursive: true, mode: 0o700 });
  const serviceRounds: number[] = [];
  const floorRounds: number[] = [];
  let floorBytes = source.bytes;
  let floorWhat: string;
  let verifiedSha256: string | undefined;
  let rssAtStartMb: number;
  let cpuSeconds = 0;

  if (scenario === 'upload') {
    floorWhat = 'source file → new file in DATA_DIR/files (stream pipeline)';
    monitor.reset();
    rssAtStartMb = monitor.peak();
    for (let round = 0; round < rounds; round++) {
      const cpuBefore = monitor.cpuSeconds();
      const { urlToken, seconds: taken } = await upload(baseUrl, apiToken, source, 1);
      cpuSeconds += monitor.cpuSeconds() - cpuBefore;
      serviceRounds.push(taken);
      // Unmeasured: the push and its blob go, so that disk use stays at one copy.
      await deletePush(baseUrl, apiToken, urlToken);

      const copy = join(floorDir, `upload-${round}`);
      const started = performance.now();
      await pipeline(createReadStream(source.path), createWriteStream(copy, { flags: 'wx', mode: 0o600 }));
      floorRounds.push(seconds(started));
      await rm(copy, { force: true });
      progress(`  round ${round + 1}: service ${taken.toFixed(2)} s, floor ${floorRounds[round].toFixed(2)} s`);
    }
  } else {
    // Unmeasured: the push to download (a view per round, plus the verifying download), and which blob it stored.
    const before = new Set(filesUnder(run.filesDir));
    const { urlToken } = await upload(baseUrl, apiToken, source, rounds + 1);
    const blobs = filesUnder(run.filesDir).filter((path) => !before.has(path));
    if (blobs.length !== 1) throw new Error(`expected the file push to store one blob under ${run.filesDir}, found ${blobs.length}`);
    floorBytes = statSync(blobs[0]).size;
    floorWhat = `stored blob (${floorBytes} bytes, encrypted) → discarded (stream pipeline)`;
    verifiedSha256 = (await download(await linkOf(baseUrl, urlToken, source.bytes), source.bytes, true)).sha256;
    if (verifiedSha256 !== source.sha256)
      throw new Error(`the downloaded file's SHA-256 ${verifiedSha256} differs from the source's ${source.sha256}`);
    progress(`  verified: the download's SHA-256 equals the source's (${source.sha256.slice(0, 16)}…)`);
    monitor.reset();
    rssAtStartMb = monitor.peak();
    for (let round = 0; round < rounds; round++) {
      // A fresh link each round (untimed): a link lives 5 minutes, and a slow round must not outlive it.
      const link = await linkOf(baseUrl, urlToken, source.bytes);
      const cpuBefore = monitor.cpuSeconds();
      const { seconds: taken } = await download(link, source.bytes, false);
      cpuSeconds += monitor.cpuSeconds() - cpuBefore;
      serviceRounds.push(taken);

      const sink = new Sink(false);
      const started = performance.now();
      await pipeline(createReadStream(blobs[0]), sink);
      floorRounds.push(seconds(started));
      if (sink.bytes !== floorBytes) throw new Error(`the floor read ${sink.bytes} bytes of a ${floorBytes}-byte blob`);
      progress(`  round ${round + 1}: service ${taken.toFixed(2)} s, floor ${floorRounds[round].toFixed(2)} s`);
    }
    await deletePush(baseUrl, apiToken, urlToken);
  }

  const peakRssMb = monitor.peak();
  const service = timings(serviceRounds, source.bytes);
  const floor = timings(floorRounds, floorBytes);
  return {
    engine: run.engine,
    scenario,
    fileBytes: source.bytes,
    rounds,
    service: { ...service, rssAtStartMb, peakRssMb, cpuSecondsPerGib: cpuSeconds / ((source.bytes * rounds) / 1024 ** 3) },
    floor: { ...floor, what: floorWhat },
    ratio: service.mibPerSecond / floor.mibPerSecond,
    verifiedSha256,
  };
}
