export const SCENARIOS = ['create', 'retrieve', 'preview', 'mix'] as const;
/** Read the prefilled owner's data (see bench/prefill.ts): the service only, and only with --prefill. */
export const PREFILL_SCENARIOS = ['list', 'audit'] as const;
/** Pushes whose owner has one webhook: each view records its event (the service only; opt-in, see USAGE). */
export const WEBHOOK_SCENARIO = 'retrieve-webhook';
/** `version` (no database work) is a diagnostic: the cost of the HTTP stack alone. */
export const ALL_SCENARIOS = [...SCENARIOS, ...PREFILL_SCENARIOS, 'version', WEBHOOK_SCENARIO] as const;
export type Scenario = (typeof ALL_SCENARIOS)[number];
/** Not autocannon runs: one large file through the service, a few rounds, beside a plain file copy (see bench/files.ts). */
export const FILE_SCENARIOS = ['upload', 'download'] as const;
export type FileScenario = (typeof FILE_SCENARIOS)[number];
export const ENGINES = ['sqlite', 'mysql', 'postgres'] as const;
export type Engine = (typeof ENGINES)[number];
/**
 * floor: node:http by hand; express: the same handlers on bare Express 5; nest: the same handlers
 * in a bare Nest controller on that Express (see bench/floor/server.ts and nest-floor.ts).
 */
export const TARGETS = ['service', 'floor', 'express', 'nest'] as const;
export type Target = (typeof TARGETS)[number];

export interface BenchOptions {
  /** Measured seconds per scenario and target. */
  duration: number;
  /** Unmeasured seconds before each measurement (JIT, pools, caches). */
  warmup: number;
  connections: number;
  engines: Engine[];
  scenarios: Scenario[];
  fileScenarios: FileScenario[];
  /** Size of the file the file scenarios send, in MiB. */
  fileMib: number;
  /** Timed rounds per file scenario (the median is reported). */
  fileRounds: number;
  targets: Target[];
  /** The service's LOG_LEVEL; `info` is what operators run. */
  logLevel: string;
  /** `raised`: rate limits far above the load (the guard runs, nothing is refused); `off`: no rate limiting. */
  throttling: 'raised' | 'off';
  /** The servers' V8 heap limit (--max-old-space-size), in MB; 0 leaves V8's default for this host. */
  heapMb: number;
  build: boolean;
  /** The built service to measure (its apps/api and apps/cli), e.g. another checkout's dist/. */
  dist?: string;
  mysqlUrl: string;
  pgUrl: string;
  /** Write V8 CPU profiles of the servers (node --cpu-prof) next to the results. */
  cpuProf: boolean;
  /** Measure again after filling each server's database with a million pushes (bench/prefill.ts). */
  prefill: boolean;
  out?: string;
}

export const USAGE = `npm run bench -- [options]      (each option can also be set as BENCH_<NAME>, e.g. BENCH_DURATION=5)
  --duration <s>        measured seconds per scenario and server      (default 20)
  --warmup <s>          unmeasured seconds before each measurement     (default 5)
  --connections <n>     concurrent keep-alive connections              (default 50)
  --db <list>           sqlite,mysql,postgres                          (default all three)
  --scenarios <list>    create,retrieve,preview,mix, and version (the HTTP stack alone, no database);
                        list,audit (need --prefill; the service alone, the floors have no such routes):
                        list: the prefilled owner's active pushes, pages 1 and 200 (two rows);
                        audit: page 40 of the prefilled 2,000-entry audit log;
                        retrieve-webhook (opt-in; the service alone): retrieve, on pushes whose owner (made
                        with users:create) has one webhook for every event, to a receiver in the bench
                        process: each view records its event in the view's transaction; the worker runs
                        as always and delivers what it can (best run last: it leaves a backlog);
                        upload,download: a large file through the service (needs the service target),
                        timed whole, beside a plain stream copy of the same bytes in the same storage
                                                                       (default create,retrieve,preview,mix,upload,download,
                                                                        and list,audit with --prefill)
  --prefill             after measuring on the empty databases, fill each server's database (migrated
                        afresh) with 1,000,000 pushes (70 % of the anonymous ones expired), two audit
                        entries each, and one user (made with the CLI's users:create) owning 10,000 active
                        ones, one of them with 2,000 audit entries (multi-row INSERTs, timed and reported),
                        and measure again: the same run gives both sets of figures
  --file-mib <n>        MiB in the random file upload/download send   (default 200)
  --file-rounds <n>     timed rounds per file scenario (median shown) (default 3)
  --targets <list>      service,floor,express,nest                     (default all four)
  --log-level <level>   the service's LOG_LEVEL                        (default info)
  --throttling <mode>   raised: PWP__THROTTLING__* far above the load, so the guard runs but never refuses;
                        off: both set to 0 (no rate limiting)          (default raised)
  --heap-mb <n>         both servers' V8 heap limit (--max-old-space-size): what V8 picks inside the Helm
                        chart's default 512 MiB memory limit; 0 = V8's default for this host (about a
                        quarter of its memory, so garbage is collected lazily and RSS runs higher)
                                                                       (default 256)
  --mysql-url <url>     MySQL/MariaDB server for the mysql runs        (default mysql://root@127.0.0.1:3306)
  --pg-url <url>        PostgreSQL server for the postgres runs        (default postgres://postgres@127.0.0.1:5432)
  --no-build            use the existing dist/ instead of running npm run build
  --dist <dir>          measure the service built in <dir> (another checkout's dist/); implies --no-build
  --cpu-prof            write .cpuprofile files of both servers to bench/results/profiles/<timestamp>/
  --out <file>          results JSON                                   (default bench/results/<timestamp>.json)`;

const BOOLEAN_FLAGS = new Set(['no-build', 'cpu-prof', 'prefill', 'help']);

function list<T extends string>(name: string, raw: string, allowed: readonly T[]): T[] {
  const items = raw.split(',').map((item) => item.trim()).filter(Boolean);
  const unknown = items.filter((item) => !allowed.includes(item as T));
  if (unknown.length > 0 || items.length === 0) throw new Error(`--${name}: expected a comma-separated subset of ${allowed.join(',')}, got "${raw}"`);
  return [...new Set(items)] as T[];
}

function positive(name: string, raw: string, min: number): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) throw new Error(`--${name}: expected an integer >= ${min}, got "${raw}"`);
  return value;
}

/** Flags win over BENCH_* environment variables, which win over the defaults. */
export function parseOptions(argv: string[], env: NodeJS.ProcessEnv): BenchOptions | 'help' {
  const given = new Map<string, string>();
  for (const [key, value] of Object.entries(env)) {
    if (key.startsWith('BENCH_') && value !== undefined && value !== '') given.set(key.slice(6).toLowerCase().replace(/_/g, '-'), value);
  }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('--')) throw new Error(`Unexpected argument "${arg}"\n${USAGE}`);
    const [name, inline] = arg.slice(2).split(/=(.*)/s, 2);
    if (BOOLEAN_FLAGS.has(name)) {
      given.set(name, 'true');
      continue;
    }
    const value = inline ?? argv[++i];
    if (value === undefined) throw new Error(`--${name} needs a value\n${USAGE}`);
    given.set(name, value);
  }
  const known = new Set(['duration', 'warmup', 'connections', 'db', 'scenarios', 'file-mib', 'file-rounds', 'targets', 'log-level', 'throttling', 'heap-mb', 'mysql-url', 'pg-url', 'dist', 'out', ...BOOLEAN_FLAGS]);
  const unknown = [...given.keys()].filter((name) => !known.has(name));
  if (unknown.length > 0) throw new Error(`Unknown option(s) ${unknown.map((n) => `--${n}`).join(', ')}\n${USAGE}`);
  if (given.get('help') === 'true') return 'help';
  const truthy = (name: string) => ['true', '1', 'yes'].includes(given.get(name) ?? '');
  const prefill = truthy('prefill');
  const defaults = [...SCENARIOS, ...(prefill ? PREFILL_SCENARIOS : []), ...FILE_SCENARIOS];
  let scenarios = list('scenarios', given.get('scenarios') ?? defaults.join(','), [...ALL_SCENARIOS, ...FILE_SCENARIOS]);
  const targets = list('targets', given.get('targets') ?? TARGETS.join(','), TARGETS);
  const prefillScenarios = scenarios.filter((s) => (PREFILL_SCENARIOS as readonly string[]).includes(s));
  if (prefillScenarios.length > 0 && !prefill) {
    throw new Error(`--scenarios ${prefillScenarios.join(',')}: the prefilled owner's data is needed, add --prefill (or BENCH_PREFILL=1)`);
  }
  if (prefillScenarios.length > 0 && !targets.includes('service')) {
    // As the file scenarios: chosen by default, they give way to a run of the floors alone.
    if (given.has('scenarios')) throw new Error(`--scenarios ${prefillScenarios.join(',')}: only the service has these routes, add it to --targets`);
    scenarios = scenarios.filter((s) => !prefillScenarios.includes(s));
  }
  if (scenarios.includes(WEBHOOK_SCENARIO) && !targets.includes('service')) {
    throw new Error(`--scenarios ${WEBHOOK_SCENARIO}: only the service has webhooks, add it to --targets`);
  }
  let fileScenarios = scenarios.filter((s): s is FileScenario => (FILE_SCENARIOS as readonly string[]).includes(s));
  if (fileScenarios.length > 0 && !targets.includes('service')) {
    // Chosen by default, they quietly give way to a run of the floors alone; asked for, they need the service.
    if (given.has('scenarios')) throw new Error(`--scenarios ${fileScenarios.join(',')} measure the service: add it to --targets`);
    fileScenarios = [];
  }
  const fileRounds = positive('file-rounds', given.get('file-rounds') ?? '3', 1);
  // A file push allows at most 100 views: one per timed download round, and one for the verifying download.
  if (fileRounds > 99) throw new Error(`--file-rounds: at most 99, got ${fileRounds}`);
  return {
    duration: positive('duration', given.get('duration') ?? '20', 1),
    warmup: positive('warmup', given.get('warmup') ?? '5', 0),
    connections: positive('connections', given.get('connections') ?? '50', 1),
    engines: list('db', given.get('db') ?? ENGINES.join(','), ENGINES),
    scenarios: scenarios.filter((s): s is Scenario => (ALL_SCENARIOS as readonly string[]).includes(s)),
    fileScenarios,
    fileMib: positive('file-mib', given.get('file-mib') ?? '200', 1),
    fileRounds,
    targets,
    logLevel: given.get('log-level') ?? 'info',
    throttling: list('throttling', given.get('throttling') ?? 'raised', ['raised', 'off'] as const)[0],
    heapMb: given.get('heap-mb') === '0' ? 0 : positive('heap-mb', given.get('heap-mb') ?? '256', 64),
    build: !truthy('no-build') && !given.has('dist'),
    dist: given.get('dist'),
    mysqlUrl: given.get('mysql-url') ?? 'mysql://root@127.0.0.1:3306',
    pgUrl: given.get('pg-url') ?? 'postgres://postgres@127.0.0.1:5432',
    cpuProf: truthy('cpu-prof'),
    prefill,
    out: given.get('out'),
  };
}
