import autocannon from 'autocannon';
import type { BenchOptions, Scenario } from './options';
import { AUDIT_PAGE, type Fixture, LAST_LIST_PAGE, PAGE_SIZE } from './prefill';
import type { ProcessMonitor } from './processes';

/**
 * What one results row measures: a scenario, or one page of a scenario that reads several
 * (`list` measures its first and its last page separately, each with its own p50 and p99).
 */
export type Load = Exclude<Scenario, 'list' | 'audit'> | `list p1` | `list p${typeof LAST_LIST_PAGE}` | `audit p${typeof AUDIT_PAGE}`;

export function loadsOf(scenario: Scenario): Load[] {
  if (scenario === 'list') return ['list p1', `list p${LAST_LIST_PAGE}`];
  if (scenario === 'audit') return [`audit p${AUDIT_PAGE}`];
  return [scenario];
}

/** Loads that read the prefilled owner's data. */
export const needsPrefill = (load: Load): boolean => load.startsWith('list') || load.startsWith('audit');
/** Loads through routes or features only the service has. */
export const serviceOnly = (load: Load): boolean => needsPrefill(load) || load === 'retrieve-webhook';

/** Views each pre-created push allows (the text kind's maximum), so retrievals never run one out. */
export const VIEWS_PER_PUSH = 100;
/** A guess at the highest retrieval rate, used to size the pool for the warm-up before any rate is known. */
const CEILING_RPS = 20_000;
/** The least retrieval rate the measured window is provisioned for. */
const MIN_RPS = 2_000;
const SEED_PAYLOAD = 'bench seed: correct horse battery staple';
const SEED_BODY = JSON.stringify({ push: { payload: SEED_PAYLOAD, expire_after_views: VIEWS_PER_PUSH } });
const CREATE_BODY = JSON.stringify({ push: { payload: 'correct horse battery staple' } });
const JSON_HEADERS = { 'content-type': 'application/json' };
const PUSH_EVENTS = ['push.created', 'push.viewed', 'push.expired', 'push.passphrase_failed', 'push.file_downloaded'];

/**
 * Pushes pre-created on one server. Retrievals are dealt round-robin across them and each push is
 * retired after VIEWS_PER_PUSH dispatches, so no request meets a used-up push and concurrent
 * requests rarely race for the same one. Every dispatch is counted as a view, even one that fails,
 * which errs on the side of more pushes.
 */
export class PushPool {
  private readonly active: { token: string; dispatched: number }[] = [];
  private readonly all: string[] = [];
  private cursor = 0;
  private previewCursor = 0;
  private views = 0;
  /** Retrievals that found the pool empty (they go to an unknown token and fail loudly as 404s). */
  exhausted = 0;

  /** `headers` seed the pushes as an owner (a Bearer token); without, anonymously. */
  constructor(
    private readonly baseUrl: string,
    private readonly headers: Record<string, string> = {},
  ) {}

  get size(): number {
    return this.all.length;
  }

  async ensureViews(views: number): Promise<void> {
    const missing = Math.ceil((views - this.views) / VIEWS_PER_PUSH);
    if (missing > 0) await this.add(missing);
  }

  async ensurePushes(count: number): Promise<void> {
    if (count > this.all.length) await this.add(count - this.all.length);
  }

  nextRetrieval(): string {
    if (this.active.length === 0) {
      this.exhausted++;
      return 'pool-exhausted';
    }
    if (this.cursor >= this.active.length) this.cursor = 0;
    const entry = this.active[this.cursor];
    entry.dispatched++;
    this.views--;
    if (entry.dispatched >= VIEWS_PER_PUSH) {
      this.active[this.cursor] = this.active[this.active.length - 1];
      this.active.pop();
    } else {
      this.cursor++;
    }
    return entry.token;
  }

  nextPreview(): string {
    return this.all[this.previewCursor++ % this.all.length];
  }

  /** Creates pushes through the server's own API, 16 at a time. */
  private async add(count: number): Promise<void> {
    let started = 0;
    const worker = async () => {
      while (started < count) {
        started++;
        const response = await fetch(`${this.baseUrl}/api/v2/pushes`, { method: 'POST', headers: { ...JSON_HEADERS, ...this.headers }, body: SEED_BODY });
        const body = (await response.json()) as { url_token?: string };
        if (response.status !== 201 || typeof body.url_token !== 'string') throw new Error(`seeding a push failed with ${response.status}`);
        this.active.push({ token: body.url_token, dispatched: 0 });
        this.all.push(body.url_token);
        this.views += VIEWS_PER_PUSH;
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
  }
}

/**
 * The retrieve-webhook scenario's pool: pushes seeded as the owner whose token this is, after
 * registering one webhook for every event to `receiverUrl`, so that each view of them records a
 * `push.viewed` event (and the last one `push.expired`) in the view's transaction.
 */
export async function webhookOwnerPool(baseUrl: string, apiToken: string, receiverUrl: string): Promise<PushPool> {
  const owner = { authorization: `Bearer ${apiToken}` };
  const response = await fetch(`${baseUrl}/api/v2/webhooks`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, ...owner },
    body: JSON.stringify({ url: receiverUrl, events: PUSH_EVENTS, description: 'bench' }),
  });
  if (response.status !== 201) throw new Error(`registering the bench webhook failed with ${response.status}: ${await response.text()}`);
  return new PushPool(baseUrl, owner);
}

export interface Measurement {
  requestsPerSecond: number;
  latencyMs: { p50: number; p90: number; p99: number; average: number; max: number };
  responses: number;
  /** non-2xx + timeouts + socket errors + 2xx answers whose body failed the scenario's check. */
  errors: number;
  non2xx: number;
  timeouts: number;
  socketErrors: number;
  invalidBodies: number;
  invalidSample?: string;
  statusCodes: Record<string, number>;
  /** Highest RSS sampled (every 100 ms) during the measured window. */
  peakRssMb: number;
  /** Server CPU time (user + system) per response in the measured window, in microseconds. */
  cpuMicrosPerRequest: number;
  /** Server CPU time over wall time: 1 means one core kept busy. */
  cpuUtilisation: number;
  durationS: number;
  poolExhausted: number;
}

/** Counts 2xx answers that are not what the scenario expects (wrong status, or no payload, ...). */
class BodyCheck {
  invalid = 0;
  sample?: string;

  expect(status: number, needle: string) {
    return (actual: number, body: string) => {
      if (actual < 200 || actual > 299) return;
      if (actual !== status || !body.includes(needle)) this.fail(actual, body);
    };
  }

  /** Exactly `count` occurrences of `needle`: a full page of items. */
  expectCount(status: number, needle: string, count: number) {
    return (actual: number, body: string) => {
      if (actual < 200 || actual > 299) return;
      let found = 0;
      for (let at = body.indexOf(needle); at !== -1; at = body.indexOf(needle, at + needle.length)) found++;
      if (actual !== status || found !== count) this.fail(actual, body);
    };
  }

  private fail(actual: number, body: string): void {
    this.invalid++;
    this.sample ??= `${actual} ${body.slice(0, 300)}`;
  }
}

function requestsFor(scenario: Load, pool: PushPool, check: BodyCheck, fixture: Fixture | undefined): autocannon.RequestSpec[] {
  const create: autocannon.RequestSpec = {
    method: 'POST',
    path: '/api/v2/pushes',
    headers: JSON_HEADERS,
    body: CREATE_BODY,
    onResponse: check.expect(201, '"url_token":"'),
  };
  const retrieve: autocannon.RequestSpec = {
    method: 'GET',
    setupRequest: (request) => ({ ...request, path: `/api/v2/pushes/${pool.nextRetrieval()}` }),
    // The decrypted seed payload proves the view was claimed and the secret read back.
    onResponse: check.expect(200, `"payload":${JSON.stringify(SEED_PAYLOAD)}`),
  };
  const preview: autocannon.RequestSpec = {
    method: 'GET',
    setupRequest: (request) => ({ ...request, path: `/api/v2/pushes/${pool.nextPreview()}/preview` }),
    onResponse: check.expect(200, '{"url":"http'),
  };
  const owner = () => {
    if (!fixture) throw new Error(`the ${scenario} scenario reads the prefilled data: run with --prefill`);
    return { authorization: `Bearer ${fixture.apiToken}` };
  };
  switch (scenario) {
    case 'list p1':
    case `list p${LAST_LIST_PAGE}`: {
      // Every page up to the last holds PAGE_SIZE of the owner's active pushes (prefill.ts).
      const page = scenario.slice('list p'.length);
      return [{ method: 'GET', path: `/api/v2/pushes/active?page=${page}`, headers: owner(), onResponse: check.expectCount(200, '"url_token":"', PAGE_SIZE) }];
    }
    case `audit p${AUDIT_PAGE}`:
      // The last full page of the 2,000-entry log.
      return [
        {
          method: 'GET',
          path: `/api/v2/pushes/${fixture?.auditPushToken}/audit?page=${AUDIT_PAGE}`,
          headers: owner(),
          onResponse: check.expectCount(200, '"kind":"', PAGE_SIZE),
        },
      ];
    case 'version':
      return [{ method: 'GET', path: '/api/v2/version', onResponse: check.expect(200, '"api_version"') }];
    case 'create':
      return [create];
    case 'retrieve':
    case 'retrieve-webhook':
      // The same requests; retrieve-webhook's pool holds pushes of an owner with a webhook.
      return [retrieve];
    case 'preview':
      return [preview];
    case 'mix':
      return [create, retrieve];
  }
}

/** Share of a scenario's requests that consume a view. */
const RETRIEVAL_SHARE: Record<Load, number> = { create: 0, retrieve: 1, 'retrieve-webhook': 1, preview: 0, mix: 0.5, version: 0, 'list p1': 0, 'list p200': 0, 'audit p40': 0 };

function fire(url: string, connections: number, duration: number, requests: autocannon.RequestSpec[]): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections, duration, requests }, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

/** Seeds what the scenario needs, warms the server up, then measures it. */
export async function measure(
  scenario: Load,
  url: string,
  pool: PushPool,
  monitor: ProcessMonitor,
  options: BenchOptions,
  fixture: Fixture | undefined,
): Promise<Measurement> {
  const share = RETRIEVAL_SHARE[scenario];
  const spare = options.connections * 4;
  if (share > 0) await pool.ensureViews(CEILING_RPS * share * options.warmup + spare);
  if (scenario === 'preview') await pool.ensurePushes(1000);
  let rate = CEILING_RPS;
  if (options.warmup > 0) {
    const warm = await fire(url, options.connections, options.warmup, requestsFor(scenario, pool, new BodyCheck(), fixture));
    rate = warm.requests.average;
  }
  // Twice the warm-up rate: a short warm-up ends before the JIT has finished, so it underestimates.
  if (share > 0) await pool.ensureViews(Math.ceil(Math.max(rate * 2, MIN_RPS) * share * options.duration) + spare);

  const check = new BodyCheck();
  const exhaustedBefore = pool.exhausted;
  monitor.reset();
  const result = await fire(url, options.connections, options.duration, requestsFor(scenario, pool, check, fixture));
  const cpu = monitor.cpuSeconds();
  const socketErrors = result.errors - result.timeouts;
  return {
    requestsPerSecond: result.requests.average,
    latencyMs: { p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, average: result.latency.average, max: result.latency.max },
    responses: result.requests.total,
    errors: result.non2xx + result.errors + check.invalid,
    non2xx: result.non2xx,
    timeouts: result.timeouts,
    socketErrors,
    invalidBodies: check.invalid,
    invalidSample: check.sample,
    statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, stat]) => [code, stat.count])),
    peakRssMb: monitor.peak(),
    cpuMicrosPerRequest: (cpu * 1e6) / Math.max(result.requests.total, 1),
    cpuUtilisation: cpu / result.duration,
    durationS: result.duration,
    poolExhausted: pool.exhausted - exhaustedBefore,
  };
}
