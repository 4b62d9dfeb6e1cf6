/**
 * Body flood: 100 concurrent maximum-size request bodies against the production build, run with the
 * memory the Helm chart gives it (a 512 MiB limit, in which V8 picks a 256 MB heap: the bench passes
 * `--max-old-space-size=256`). For each kind of body it prints the answers by status, the server's
 * peak RSS during the flood and whether it survived (it must still answer afterwards).
 *
 *   npm run bench:body-flood [-- --concurrency 100 --heap-mb 256 --budget 64MiB]
 *
 * `--budget` sets PWP__MAX_BODY_BYTES_IN_FLIGHT (default: the service's own default).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { gzipSync } from 'node:zlib';
import { createApiToken } from './files';
import { freePort } from '../test/support/helpers';
import { killAll, ProcessMonitor, progress, startServer } from './processes';

const ROOT = join(__dirname, '..', '..', '..');
const SERVER_MAIN = join(ROOT, 'dist', 'apps', 'api', 'src', 'main.js');
const CLI_MAIN = join(ROOT, 'dist', 'apps', 'cli', 'src', 'main.js');
const MASTER_KEY = '62656e63682d6b65792d6e6f742d612d7365637265742d2d2d2d2d2d2d2d2d21';
const MIB = 1024 * 1024;
/** The chart's default memory limit (helm/pwpush/values.yaml resources.limits.memory). */
const CHART_LIMIT_MIB = 512;

function option(name: string, fallback: string): string {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 && process.argv[index + 1] ? process.argv[index + 1] : fallback;
}

interface Flood {
  name: string;
  headers: Record<string, string>;
  body: Buffer;
  /** Whether a 503 is retried after its Retry-After, as a well-behaved client does. */
  retry?: boolean;
}

/**
 * The largest create a body may carry without files: 1,048,576 characters, each written as an
 * escaped surrogate pair (12 bytes), about 12 MiB; the server parses, validates and encrypts it.
 */
const largestText = () => Buffer.from(`{"push":{"payload":"${'\\ud83d\\ude00'.repeat(1_048_576)}","expire_after_views":1}}`);
/** 16 KB of gzip that inflate to a 16 MiB create: twenty of them at once killed the process before the body reader refused compressed bodies. */
const gzipBomb = () => gzipSync(Buffer.from(`{"push":{"payload":"${'x'.repeat(16 * MIB)}"}}`));
/** An authenticated create at PWP__FILES__MAX_JSON_BODY_SIZE (32 MiB): one file in base64. */
const largestJsonFile = () => Buffer.from(JSON.stringify({ push: { files: [{ filename: 'flood.bin', data: Buffer.alloc(24 * MIB - 4096, 1).toString('base64') }] } }));
/** A body at the old limit of any request with an Authorization header, valid or not (32 MiB). */
const bogusLarge = () => Buffer.from(`{"push":{"payload":"${'x'.repeat(32 * MIB - 32)}"}}`);

const FLOODS = ['text', 'textRetried', 'gzip', 'bogus', 'bogusGzip', 'file'] as const;

function floods(token: string): Record<(typeof FLOODS)[number], Flood> {
  const json = { 'content-type': 'application/json' };
  const gzip = { ...json, 'content-encoding': 'gzip' };
  const bogus = { authorization: 'Bearer bogus-token-of-nobody' };
  const owner = { authorization: `Bearer ${token}` };
  return {
    text: { name: 'anonymous, the largest text create', headers: json, body: largestText() },
    textRetried: { name: 'the same, each 503 retried after Retry-After', headers: json, body: largestText(), retry: true },
    gzip: { name: 'anonymous, gzip inflating to 16 MiB', headers: gzip, body: gzipBomb() },
    bogus: { name: 'bogus token, 32 MiB', headers: { ...json, ...bogus }, body: bogusLarge() },
    bogusGzip: { name: 'bogus token, gzip inflating to 16 MiB', headers: { ...gzip, ...bogus }, body: gzipBomb() },
    file: { name: 'valid token, 32 MiB (a base64 file)', headers: { ...json, ...owner }, body: largestJsonFile() },
  };
}

/** Sends one body whole (unless the server answers first and closes) and reports the status, or the error, and the Retry-After. */
function sendOnce(url: string, flood: Flood): Promise<[status: string, retryAfter: number]> {
  return new Promise((resolve) => {
    const req = httpRequest(`${url}/api/v2/pushes`, { method: 'POST', headers: { ...flood.headers, 'content-length': String(flood.body.length) } });
    req.once('response', (res) => {
      res.resume();
      res.once('end', () => resolve([String(res.statusCode), Number(res.headers['retry-after'] ?? 1)]));
    });
    req.once('error', (error: NodeJS.ErrnoException) => resolve([error.code ?? 'error', 0]));
    req.end(flood.body);
  });
}

/** The final status of one client, and how many attempts it made. */
async function send(url: string, flood: Flood): Promise<[status: string, attempts: number]> {
  for (let attempts = 1; ; attempts++) {
    const [status, retryAfter] = await sendOnce(url, flood);
    if (status !== '503' || !flood.retry) return [status, attempts];
    await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000));
  }
}

const formatSize = (bytes: number) => (bytes < MIB ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / MIB).toFixed(2)} MiB`);

async function alive(url: string): Promise<boolean> {
  try {
    return (await fetch(`${url}/api/v2/version`, { signal: AbortSignal.timeout(10_000) })).ok;
  } catch {
    return false;
  }
}

async function main(): Promise<void> {
  const concurrency = Number(option('concurrency', '100'));
  const heapMb = Number(option('heap-mb', '256'));
  const budget = option('budget', '');
  const dir = mkdtempSync(join(tmpdir(), 'pwpush-bench-flood-'));
  const env = {
    PATH: process.env.PATH,
    NODE_ENV: 'production',
    DATABASE_URL: `sqlite:${join(dir, 'flood.sqlite3')}`,
    DATA_DIR: dir,
    PWPUSH_MASTER_KEY: MASTER_KEY,
    LOG_LEVEL: 'warn',
    // Every request comes from one address: the flood is about memory, not rate limits.
    PWP__THROTTLING__MINUTE: '0',
    PWP__THROTTLING__SECOND: '0',
    ...(budget ? { PWP__MAX_BODY_BYTES_IN_FLIGHT: budget } : {}),
  };
  const rows: string[] = [];
  try {
    let token: string | undefined;
    for (const kind of FLOODS) {
      // A fresh server per flood, so that each peak is its own; the first one migrates the database.
      const port = await freePort();
      const server = await startServer('service', SERVER_MAIN, [`--max-old-space-size=${heapMb}`], { ...env, PORT: String(port) }, port, '/api/v2/version', join(dir, 'server.log'));
      token ??= await createApiToken(CLI_MAIN, env);
      const flood = floods(token)[kind];
      const monitor = new ProcessMonitor(server.pid);
      monitor.reset();
      const idle = monitor.peak();
      progress(`${flood.name}: ${concurrency} × ${formatSize(flood.body.length)}`);
      const started = performance.now();
      const results = await Promise.all(Array.from({ length: concurrency }, () => send(server.url, flood)));
      const statuses = results.map(([status]) => status);
      const attempts = results.reduce((sum, [, n]) => sum + n, 0);
      const seconds = (performance.now() - started) / 1000;
      const survived = server.exitStatus() === undefined && (await alive(server.url));
      const peak = monitor.peak();
      const counts = new Map<string, number>();
      for (const status of statuses) counts.set(status, (counts.get(status) ?? 0) + 1);
      const answers = [...counts].sort().map(([status, n]) => `${n} × ${status}`).join(', ') + (flood.retry ? ` (${attempts} attempts)` : '');
      rows.push(
        `| ${flood.name} | ${formatSize(flood.body.length)} | ${answers} | ${seconds.toFixed(1)} s | ${Math.round(idle)} MB | ${Math.round(peak)} MB | ${survived ? 'yes' : `**no** (${server.exitStatus() ?? 'not answering'})`} |`,
      );
      monitor.stop();
      await server.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`\n${concurrency} concurrent bodies of each kind; --max-old-space-size=${heapMb}; PWP__MAX_BODY_BYTES_IN_FLIGHT=${budget || 'default'}; chart memory limit ${CHART_LIMIT_MIB} MiB.\n`);
  console.log('| bodies | size | answers | time | idle RSS | peak RSS | survived |');
  console.log('|---|--:|---|--:|--:|--:|---|');
  for (const row of rows) console.log(row);
}

main().catch((error: unknown) => {
  killAll();
  console.error(error);
  process.exit(1);
});
