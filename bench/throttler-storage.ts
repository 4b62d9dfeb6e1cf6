import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { type ThrottlerStorage, ThrottlerStorageService } from '@nestjs/throttler';

/**
 * Cost of one rate-limit increment in process memory: @nestjs/throttler's stock storage (a
 * timestamp per request, filtered on every request) against ours (a fixed-window counter), one
 * client under a limit it never reaches. Prints µs per increment around 1,000, 10,000 and 100,000
 * hits (the mean of the 1,000 hits leading up to each), the mean since the start, and, when run
 * with --expose-gc, the heap the counters retain.
 *
 *   npm run build && tsc -p bench/tsconfig.json && node --expose-gc bench/.build/bench/throttler-storage.js
 *   (or, after npm run build: npx ts-node -T bench/throttler-storage.ts)
 */

const CHECKPOINTS = [1_000, 10_000, 100_000];
const SAMPLE = 1_000;
const TTL = 60_000;
const LIMIT = Number.MAX_SAFE_INTEGER;
const KEY = 'throttle:one-busy-client';

/** The repository root, whether this runs from bench/ (ts-node) or bench/.build/bench/ (compiled). */
function repositoryRoot(): string {
  for (let dir = __dirname; dir !== dirname(dir); dir = dirname(dir)) if (existsSync(join(dir, 'package.json'))) return dir;
  throw new Error(`No package.json above ${__dirname}.`);
}

/** The built library (npm run build): bench/ compiles on its own, outside the libraries' paths. */
async function loadMemoryStorage(): Promise<new () => ThrottlerStorage> {
  const file = join(repositoryRoot(), 'dist', 'libs', 'rate-limit', 'src', 'memory-throttler-storage.js');
  if (!existsSync(file)) throw new Error(`${file} is missing: run npm run build first.`);
  const module = (await import(file)) as { MemoryThrottlerStorage: new () => ThrottlerStorage };
  return module.MemoryThrottlerStorage;
}

const gc = (globalThis as { gc?: () => void }).gc;
const heapUsed = () => {
  gc?.();
  return process.memoryUsage().heapUsed;
};

async function hitMany(storage: ThrottlerStorage, count: number, key: string): Promise<void> {
  for (let i = 0; i < count; i++) await storage.increment(key, TTL, LIMIT, TTL, 'minute');
}

/** The stock storage keeps a sweep timer, which also holds it in memory, until shut down. */
const dispose = (storage: ThrottlerStorage) => (storage as Partial<ThrottlerStorageService>).onApplicationShutdown?.();

async function measure(name: string, create: () => ThrottlerStorage): Promise<string[]> {
  const warmUp = create();
  await hitMany(warmUp, 20_000, 'warm-up');
  dispose(warmUp);
  const heapBefore = heapUsed();
  const storage = create();
  const cells = [name];
  let done = 0;
  const start = performance.now();
  for (const checkpoint of CHECKPOINTS) {
    await hitMany(storage, checkpoint - SAMPLE - done, KEY);
    const sampleStart = performance.now();
    await hitMany(storage, SAMPLE, KEY);
    const now = performance.now();
    done = checkpoint;
    cells.push(`${(((now - sampleStart) * 1000) / SAMPLE).toFixed(2)} µs`, `${(((now - start) * 1000) / checkpoint).toFixed(2)} µs`);
  }
  cells.push(gc ? `${Math.round((heapUsed() - heapBefore) / 1024)} KB` : 'n/a (no --expose-gc)');
  dispose(storage);
  return cells;
}

async function main(): Promise<void> {
  const MemoryThrottlerStorage = await loadMemoryStorage();
  const header = [
    'storage',
    ...CHECKPOINTS.flatMap((n) => [`at ${n.toLocaleString('en')}`, `mean to ${n.toLocaleString('en')}`]),
    'heap retained',
  ];
  const rows = [
    await measure('MemoryThrottlerStorage', () => new MemoryThrottlerStorage()),
    await measure('ThrottlerStorageService', () => new ThrottlerStorageService()),
  ];
  console.log(`Node ${process.version}; µs per increment, one client, limit never reached`);
  for (const row of [header, header.map(() => '---'), ...rows]) console.log(`| ${row.join(' | ')} |`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
