import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { type BenchDatabases, createDatabases } from './databases';
import { createApiToken, createSourceFile, type FileResult, measureFiles, type SourceFile } from './files';
import { type BenchOptions, type Engine, parseOptions, type Target, USAGE, WEBHOOK_SCENARIO } from './options';
import { freePort } from '../test/support/helpers';
import { killAll, progress, ProcessMonitor, runCommand, type ServerProcess, startServer } from './processes';
import { type Fixture, prefill } from './prefill';
import { formatFileTable, formatPrefill, formatTable, type PrefillSummary, type ResultRow, type ServerSummary } from './report';
import { type Load, loadsOf, measure, needsPrefill, PushPool, serviceOnly, webhookOwnerPool } from './scenarios';
import { type BenchReceiver, startBenchReceiver } from './webhook-receiver';

/**
 * npm run bench: the service (the built production server as a child process) and the floor
 * (bench/floor/server.ts) on fresh databases, scenario by scenario under autocannon, one Markdown
 * table on stdout and the full figures in bench/results/<timestamp>.json. See USAGE in options.ts.
 */

// Compiled to bench/.build/bench/ (with test/support/ beside it), three levels below the repository root.
const ROOT = resolve(__dirname, '..', '..', '..');
const distOf = (options: BenchOptions) => resolve(options.dist ?? join(ROOT, 'dist'));
const serverMain = (dist: string) => join(dist, 'apps', 'api', 'src', 'main.js');
const cliMain = (dist: string) => join(dist, 'apps', 'cli', 'src', 'main.js');

/**
 * Copies the build under test to a directory of its own, so that a rebuild of dist/ by someone
 * else during the run (nest build empties it first) cannot pull files from under the server.
 * It runs with the node_modules beside the build (another checkout's dependencies may differ),
 * else this project's.
 */
function snapshotBuild(dist: string): { dist: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'pwpush-bench-build-'));
  cpSync(dist, join(dir, 'dist'), { recursive: true });
  const besideBuild = join(resolve(dist), '..', 'node_modules');
  symlinkSync(existsSync(besideBuild) ? besideBuild : join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return { dist: join(dir, 'dist'), remove: () => rmSync(dir, { recursive: true, force: true }) };
}
const FLOOR_MAIN = join(__dirname, 'floor', 'server.js');
/** A fixed key so runs are comparable; it protects nothing but bench data. */
const MASTER_KEY = '62656e63682d6b65792d6e6f742d612d7365637265742d2d2d2d2d2d2d2d2d21';
/** Far above any rate a 2-core machine reaches, so rate limiting never answers 429 during a run. */
const RAISED_LIMIT = '100000000';

const cleanups: (() => Promise<void>)[] = [];

function serverEnv(target: Target, databaseUrl: string, port: number, dataDir: string, options: BenchOptions): NodeJS.ProcessEnv {
  const base = { PATH: process.env.PATH, NODE_ENV: 'production' };
  if (target !== 'service') {
    return { ...base, FLOOR_PORT: String(port), FLOOR_DATABASE_URL: databaseUrl, FLOOR_MASTER_KEY: MASTER_KEY, FLOOR_FRAMEWORK: target === 'floor' ? 'http' : target };
  }
  return {
    ...base,
    PORT: String(port),
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    PWPUSH_MASTER_KEY: MASTER_KEY,
    LOG_LEVEL: options.logLevel,
    // 0 turns a window off.
    PWP__THROTTLING__MINUTE: options.throttling === 'off' ? '0' : RAISED_LIMIT,
    PWP__THROTTLING__SECOND: options.throttling === 'off' ? '0' : RAISED_LIMIT,
    // The retrieve-webhook scenario's endpoint is the bench's receiver on 127.0.0.1, over http.
    ...(options.scenarios.includes(WEBHOOK_SCENARIO) ? { PWP__WEBHOOKS__ALLOW_HTTP: 'true', PWP__WEBHOOKS__ALLOWED_HOSTS: '127.0.0.1' } : {}),
    // Only the file scenarios need room for a large file (the defaults are 100 MiB a file, 500 MiB a push).
    ...(options.fileScenarios.length > 0 ? { PWP__FILES__MAX_FILE_SIZE: `${fileLimitMib(options)}MiB`, PWP__FILES__MAX_PUSH_SIZE: `${Math.max(512, fileLimitMib(options))}MiB` } : {}),
  };
}

const fileLimitMib = (options: BenchOptions) => Math.max(256, options.fileMib + 1);

async function startTarget(target: Target, dbs: BenchDatabases, options: BenchOptions, dist: string, profileDir: string | undefined): Promise<ServerProcess> {
  const port = await freePort();
  const env = serverEnv(target, dbs.urls[target], port, join(dbs.dir, 'data'), options);
  const nodeArgs = [
    ...(options.heapMb > 0 ? [`--max-old-space-size=${options.heapMb}`] : []),
    ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=${target}-${Date.now()}.cpuprofile`] : []),
  ];
  const script = target === 'service' ? serverMain(dist) : FLOOR_MAIN;
  return startServer(target, script, nodeArgs, env, port, '/api/v2/version', join(dbs.dir, `${target}.log`));
}

interface RunningServer {
  process: ServerProcess;
  monitor: ProcessMonitor;
  pool: PushPool;
  /** The service's pushes of an owner with a webhook (retrieve-webhook). */
  webhookPool?: PushPool;
}

const cliEnvOf = (dbs: BenchDatabases, target: Target) => ({
  PATH: process.env.PATH,
  NODE_ENV: 'production',
  DATABASE_URL: dbs.urls[target],
  DATA_DIR: join(dbs.dir, 'data'),
  PWPUSH_MASTER_KEY: MASTER_KEY,
});

/**
 * Fills the first target's (migrated) database and gives the others the same rows: a copy where
 * the engine allows one (SQLite file, PostgreSQL template), else a load of their own. Returns
 * the service's owner and token, which the list and audit scenarios use.
 */
async function fillDatabases(engine: Engine, targets: Target[], dbs: BenchDatabases, dist: string, prefills: PrefillSummary[]): Promise<Fixture> {
  let fixture: Fixture | undefined;
  let loadedTarget: Target | undefined;
  // The empty-database measurements left rows behind; the prefill writes its own ids from 1.
  for (const target of targets) await dbs.reset(target);
  for (const target of targets) {
    if (loadedTarget && dbs.copy) {
      // The same rows (and the same owner and token) as the loaded database, without loading them again.
      progress(`${engine}: copying the prefilled ${loadedTarget} database for the ${target}`);
      const started = performance.now();
      await dbs.copy(loadedTarget, target);
      const { pushes, auditEntries } = prefills[0];
      prefills.push({ engine, target, method: 'copied', seconds: (performance.now() - started) / 1000, pushes, auditEntries });
      continue;
    }
    await runCommand(process.execPath, [cliMain(dist), 'migrations:run'], cliEnvOf(dbs, target));
    progress(`${engine}: prefilling the ${target} database`);
    const result = await prefill(engine, dbs.urls[target], `${engine} ${target}`, cliMain(dist), cliEnvOf(dbs, target));
    progress(`${engine}: ${target} database prefilled in ${result.seconds.toFixed(1)} s`);
    // Every target's owner has its own token; the service's is the one the scenarios use.
    if (target === 'service' || !fixture) fixture = result.fixture;
    loadedTarget ??= target;
    prefills.push({ engine, target, method: 'loaded', seconds: result.seconds, pushes: result.pushes, auditEntries: result.auditEntries });
  }
  if (!fixture) throw new Error('no database was prefilled');
  return fixture;
}

/** One scenario on every target that has its routes, one after the other. */
async function measureLoad(
  engine: Engine,
  scenario: Load,
  prefilled: boolean,
  servers: Map<Target, RunningServer>,
  options: BenchOptions,
  fixture: Fixture | undefined,
): Promise<ResultRow> {
  const row: ResultRow = { engine, scenario, prefilled };
  // The floors have no list or audit routes: their cells stay empty.
  for (const target of options.targets.filter((t) => t === 'service' || !serviceOnly(scenario))) {
    const { process: server, monitor, pool, webhookPool } = servers.get(target)!;
    progress(`${engine} ${scenario} ${target}${prefilled ? ' (prefilled)' : ''}: ${options.warmup} s warm-up, ${options.duration} s measured`);
    const m = await measure(scenario, server.url, scenario === WEBHOOK_SCENARIO ? webhookPool! : pool, monitor, options, fixture);
    const died = server.exitStatus();
    if (died) throw new Error(`the ${target} exited (${died}) during the ${scenario} scenario`);
    row[target] = m;
    progress(
      `  ${Math.round(m.requestsPerSecond)} req/s, p50 ${m.latencyMs.p50} ms, p99 ${m.latencyMs.p99} ms, ${m.errors} errors, ${Math.round(m.peakRssMb)} MB, ` +
        `${Math.round(m.cpuMicrosPerRequest)} µs CPU/request at ${Math.round(m.cpuUtilisation * 100)}% of a core` +
        (m.invalidSample ? `\n  first unexpected answer: ${m.invalidSample}` : '') +
        (m.poolExhausted ? `\n  ${m.poolExhausted} retrievals found the push pool empty` : ''),
    );
  }
  if (row.service && row.floor) row.ratio = row.service.requestsPerSecond / row.floor.requestsPerSecond;
  if (row.service && row.express) row.expressRatio = row.service.requestsPerSecond / row.express.requestsPerSecond;
  return row;
}

async function runEngine(
  engine: Engine,
  options: BenchOptions,
  dist: string,
  profileDir: string | undefined,
  source: SourceFile | undefined,
  receiver: BenchReceiver | undefined,
): Promise<{ rows: ResultRow[]; fileRows: FileResult[]; servers: ServerSummary[]; prefills: PrefillSummary[] }> {
  const dbs = await createDatabases(engine, engine === 'postgres' ? options.pgUrl : options.mysqlUrl);
  const drop = () => dbs.drop();
  cleanups.push(drop);
  const servers = new Map<Target, RunningServer>();
  const peakRss = new Map<Target, number>();
  const stopServers = async () => {
    for (const [target, s] of servers) {
      s.monitor.stop();
      peakRss.set(target, Math.max(peakRss.get(target) ?? 0, s.monitor.lifetimePeak()));
      await s.process.stop();
    }
    servers.clear();
  };
  const prefills: PrefillSummary[] = [];
  try {
    // The file scenarios measure the service alone: without load scenarios, the floors stay down.
    const targets: Target[] = options.scenarios.length > 0 ? options.targets : ['service'];
    // Every schema comes from the service's migrations: the floors write the very same tables.
    for (const target of targets) {
      progress(`${engine}: migrating the ${target} database`);
      await runCommand(process.execPath, [cliMain(dist), 'migrations:run'], cliEnvOf(dbs, target));
    }
    const rows: ResultRow[] = [];
    let fixture: Fixture | undefined;
    // With --prefill, the same run measures the load scenarios on the empty databases first, then
    // on the filled ones: the two sets of figures differ by the data alone, not by the day.
    for (const prefilled of options.prefill ? [false, true] : [false]) {
      if (prefilled) {
        await stopServers();
        fixture = await fillDatabases(engine, targets, dbs, dist, prefills);
      }
      for (const target of targets) {
        const server = await startTarget(target, dbs, options, dist, profileDir);
        servers.set(target, { process: server, monitor: new ProcessMonitor(server.pid), pool: new PushPool(server.url) });
        progress(`${engine}: ${target} listening on ${server.url} (pid ${server.pid})`);
      }
      const service = servers.get('service');
      if (receiver && service) {
        progress(`${engine}: an owner (users:create) with one webhook to ${receiver.url}, for ${WEBHOOK_SCENARIO}`);
        const apiToken = await createApiToken(cliMain(dist), cliEnvOf(dbs, 'service'), 'bench-webhook-owner@example.com');
        service.webhookPool = await webhookOwnerPool(service.process.url, apiToken, receiver.url);
      }
      // The list and audit scenarios read the prefilled owner's data: the filled databases only.
      const loads = options.scenarios.flatMap(loadsOf).filter((load) => prefilled || !needsPrefill(load));
      for (const scenario of loads) {
        rows.push(await measureLoad(engine, scenario, prefilled, servers, options, fixture));
        if (scenario === WEBHOOK_SCENARIO) progress(`  the service's worker has delivered ${receiver!.received()} webhooks to the receiver so far`);
      }
    }
    const fileRows: FileResult[] = [];
    if (source && options.fileScenarios.length > 0) {
      const { process: server, monitor } = servers.get('service')!;
      progress(`${engine}: creating a user for the file scenarios (users:create)`);
      const apiToken = await createApiToken(cliMain(dist), cliEnvOf(dbs, 'service'));
      for (const scenario of options.fileScenarios) {
        progress(`${engine} ${scenario} service: ${options.fileRounds} rounds of ${options.fileMib} MiB, each beside a floor round`);
        const result = await measureFiles(scenario, { engine, baseUrl: server.url, apiToken, filesDir: join(dbs.dir, 'data', 'files'), monitor, source, rounds: options.fileRounds });
        const died = server.exitStatus();
        if (died) throw new Error(`the service exited (${died}) during the ${scenario} scenario`);
        fileRows.push(result);
        progress(
          `  service ${result.service.mibPerSecond.toFixed(0)} MiB/s (median ${result.service.medianSeconds.toFixed(2)} s), floor ${result.floor.mibPerSecond.toFixed(0)} MiB/s, ` +
            `${Math.round(result.ratio * 100)}%; RSS ${Math.round(result.service.rssAtStartMb)} → peak ${Math.round(result.service.peakRssMb)} MB, ${result.service.cpuSecondsPerGib.toFixed(1)} CPU s/GiB`,
        );
      }
    }
    await stopServers();
    const summaries = [...peakRss].map(([target, lifetimePeakRssMb]) => ({ engine, target, lifetimePeakRssMb }));
    return { rows, fileRows, servers: summaries, prefills };
  } catch (error) {
    for (const [target, s] of servers) progress(`${target} (${s.process.exitStatus() ?? 'running'}) output:\n${s.process.output().slice(-5000)}`);
    throw error;
  } finally {
    await stopServers();
    await drop();
    cleanups.splice(cleanups.indexOf(drop), 1);
  }
}

function gitRevision(): string {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'apps', 'libs'], { cwd: ROOT, encoding: 'utf8' }).trim() !== '';
    return dirty ? `${commit}+uncommitted changes in apps/libs` : commit;
  } catch {
    return 'unknown';
  }
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2), process.env);
  if (options === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (options.build) {
    progress('building (npm run build)');
    await runCommand('npm', ['run', '--silent', 'build'], process.env);
  }
  if (!existsSync(serverMain(distOf(options))) || !existsSync(cliMain(distOf(options)))) {
    throw new Error(`${distOf(options)} holds no built server and CLI: run without --no-build, or npm run build first.`);
  }
  // The revision the measured build was made from: read now, as its copy is taken, not after the run.
  const revision = gitRevision();
  const build = snapshotBuild(distOf(options));
  cleanups.push(async () => build.remove());

  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const resultsDir = join(ROOT, 'bench', 'results');
  const profileDir = options.cpuProf ? join(resultsDir, 'profiles', stamp) : undefined;
  if (profileDir) mkdirSync(profileDir, { recursive: true });
  const started = new Date();
  const loadBefore = loadavg();

  let source: SourceFile | undefined;
  if (options.fileScenarios.length > 0) {
    progress(`generating the ${options.fileMib} MiB random file for ${options.fileScenarios.join(' and ')}`);
    const file = await createSourceFile(options.fileMib);
    source = file;
    cleanups.push(async () => file.remove());
  }

  const receiver = options.scenarios.includes(WEBHOOK_SCENARIO) ? await startBenchReceiver() : undefined;
  if (receiver) cleanups.push(() => receiver.close());

  const rows: ResultRow[] = [];
  const fileRows: FileResult[] = [];
  const servers: ServerSummary[] = [];
  const prefills: PrefillSummary[] = [];
  for (const engine of options.engines) {
    const result = await runEngine(engine, options, build.dist, profileDir, source, receiver);
    rows.push(...result.rows);
    fileRows.push(...result.fileRows);
    servers.push(...result.servers);
    prefills.push(...result.prefills);
  }
  source?.remove();
  await receiver?.close();

  const cpu = cpus();
  const machine = `${cpu.length} × ${cpu[0]?.model.trim() ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GB, Node ${process.version}`;
  const table = rows.length > 0 ? formatTable(rows) : '';
  const fileTable = fileRows.length > 0 ? formatFileTable(fileRows) : '';
  const fileCaption =
    `${options.fileMib} MiB random file, median of ${options.fileRounds} rounds each; service: multipart POST (upload) or GET of the signed link (download) over node:http on 127.0.0.1, ` +
    `timed to the last byte of the answer; floor: the same bytes by a Node stream pipeline in the bench process, source file → new file in the service's DATA_DIR/files (upload), ` +
    `the service's stored (encrypted) blob → discarded (download); RSS sampled every 100 ms`;
  const caption =
    (rows.length > 0 ? `${options.connections} connections, ${options.duration} s measured after ${options.warmup} s warm-up per scenario and server; ` : '') +
    (prefills.length > 0 ? `${formatPrefill(prefills)}; ` : '') +
    `service LOG_LEVEL=${options.logLevel}, rate limits ${options.throttling}; heap limit ${options.heapMb > 0 ? `${options.heapMb} MB` : 'V8 default'}; ${machine}; load average before/after ${loadBefore[0].toFixed(2)}/${loadavg()[0].toFixed(2)}; ${options.dist ? `service from ${distOf(options)}` : `revision ${revision}`}`;
  process.stdout.write([table, fileTable && `${fileTable}\n\n${fileCaption}`, caption].filter(Boolean).join('\n\n') + '\n');

  const out = options.out ? resolve(options.out) : join(resultsDir, `${stamp}.json`);
  mkdirSync(join(out, '..'), { recursive: true });
  const document = {
    started: started.toISOString(),
    finished: new Date().toISOString(),
    revision,
    serviceDist: distOf(options),
    machine: { cpus: cpu.length, cpuModel: cpu[0]?.model.trim(), memoryGb: Math.round(totalmem() / 2 ** 30), node: process.version },
    loadAverage: { before: loadBefore, after: loadavg() },
    options,
    table,
    fileTable,
    rows,
    fileRows,
    servers,
    prefills,
  };
  writeFileSync(out, `${JSON.stringify(document, null, 2)}\n`);
  build.remove();
  progress(`results written to ${relative(process.cwd(), out)}${profileDir ? `; CPU profiles in ${relative(process.cwd(), profileDir)}` : ''}`);
}

process.once('SIGINT', () => {
  progress('interrupted: stopping servers and dropping the bench databases');
  killAll();
  void Promise.allSettled(cleanups.map((cleanup) => cleanup())).then(() => process.exit(130));
});

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.message : String(error)}\n`);
  killAll();
  void Promise.allSettled(cleanups.map((cleanup) => cleanup())).then(() => process.exit(1));
});
