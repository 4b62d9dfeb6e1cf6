/**
 * Sweep benchmark: N elapsed pushes in a fresh MariaDB/MySQL database, swept by one process
 * (the CLI's `expiry:sweep`, the same service the server schedules). Prints the time taken and
 * the sweeping process's peak memory, for several sizes so that growth with N is visible.
 *
 *   npm run bench:sweep -- --rows 100000,1000000 [--mysql mysql://root@127.0.0.1:3306]
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { createConnection, type Connection } from 'mysql2/promise';

const ROOT = join(__dirname, '..', '..', '..');
const CLI = join(ROOT, 'dist', 'apps', 'cli', 'src', 'main.js');
const INSERT_CHUNK = 5_000;
const ACTIVE_PUSHES = 1_000;
const KEY = 'b'.repeat(64);

function option(name: string, fallback: string): string {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 && process.argv[index + 1] ? process.argv[index + 1] : fallback;
}

function cli(args: string[], databaseUrl: string): string {
  return execFileSync(process.execPath, [CLI, ...args], {
    env: { PATH: process.env.PATH, DATABASE_URL: databaseUrl, PWPUSH_MASTER_KEY: KEY, DATA_DIR: '/tmp' },
    encoding: 'utf8',
  });
}

/** Pushes expiring at `expiresAt`, inserted in multi-row statements. */
async function insertPushes(connection: Connection, count: number, expiresAt: number, prefix: string): Promise<void> {
  const payload = randomBytes(64);
  for (let done = 0; done < count; done += INSERT_CHUNK) {
    const rows = Array.from({ length: Math.min(INSERT_CHUNK, count - done) }, (_, i) => [
      `${prefix}${done + i}_${randomBytes(8).toString('hex')}`,
      'text',
      payload,
      7,
      5,
      expiresAt,
      expiresAt - 7 * 86_400_000,
      expiresAt - 7 * 86_400_000,
    ]);
    await connection.query(
      `INSERT INTO pushes (url_token, kind, payload, expire_after_days, expire_after_views, expires_at, created_at, updated_at,
         view_count, deletable_by_viewer, retrieval_step, expired, deleted, passphrase_protected, audit_entry_count) VALUES ?`,
      [rows.map((row) => [...row, 0, 1, 1, 0, 0, 0, 1])],
    );
  }
}

async function run(rows: number, server: string): Promise<Record<string, number>> {
  const name = `pwpush_bench_sweep_${randomBytes(4).toString('hex')}`;
  const admin = await createConnection({ uri: server });
  await admin.query(`CREATE DATABASE \`${name}\``);
  const url = new URL(server);
  url.pathname = `/${name}`;
  const databaseUrl = url.toString();
  try {
    cli(['migrations:run'], databaseUrl);
    const connection = await createConnection({ uri: databaseUrl });
    const insertStarted = performance.now();
    await insertPushes(connection, rows, Date.now() - 60_000, 'elapsed');
    await insertPushes(connection, ACTIVE_PUSHES, Date.now() + 86_400_000, 'active');
    const insertMs = performance.now() - insertStarted;

    const started = performance.now();
    const sweep = spawnSync(process.execPath, [CLI, 'expiry:sweep'], {
      env: { PATH: process.env.PATH, DATABASE_URL: databaseUrl, PWPUSH_MASTER_KEY: KEY, DATA_DIR: '/tmp', LOG_LEVEL: 'warn' },
      encoding: 'utf8',
    });
    const wallMs = performance.now() - started;
    if (sweep.status !== 0) throw new Error(`expiry:sweep failed: ${sweep.stderr}`);
    const result = JSON.parse(sweep.stdout) as { expired: number; durationMs: number; peak_rss_mb: number };

    const [[check]] = (await connection.query('SELECT SUM(expired = 0) AS active, SUM(payload IS NULL) AS wiped FROM pushes')) as unknown as [
      { active: string; wiped: string }[],
    ];
    await connection.end();
    if (result.expired !== rows || Number(check.active) !== ACTIVE_PUSHES || Number(check.wiped) !== rows) {
      throw new Error(`unexpected outcome: ${JSON.stringify({ result, check })}`);
    }
    return { rows, insertMs, sweepMs: result.durationMs, wallMs, peakRssMb: result.peak_rss_mb, rowsPerSecond: (rows / result.durationMs) * 1000 };
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS \`${name}\``);
    await admin.end();
  }
}

async function main(): Promise<void> {
  const server = option('mysql', process.env.E2E_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306');
  const sizes = option('rows', '100000,1000000').split(',').map(Number);
  const results: Record<string, number>[] = [];
  for (const rows of sizes) {
    process.stderr.write(`sweeping ${rows.toLocaleString('en-US')} elapsed pushes...\n`);
    results.push(await run(rows, server));
  }
  console.log('\n| elapsed pushes | sweep time | pushes/s | sweep process peak RSS | process wall time (incl. start-up) |');
  console.log('|---:|---:|---:|---:|---:|');
  for (const r of results) {
    console.log(
      `| ${r.rows.toLocaleString('en-US')} | ${(r.sweepMs / 1000).toFixed(1)} s | ${Math.round(r.rowsPerSecond).toLocaleString('en-US')} | ${r.peakRssMb} MB | ${(r.wallMs / 1000).toFixed(1)} s |`,
    );
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
