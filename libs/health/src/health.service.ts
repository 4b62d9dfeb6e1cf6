import { Injectable, Logger } from '@nestjs/common';
import { HealthIndicatorResult, HealthIndicatorService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { ServiceUnavailableError } from '@app/common';
import { Metrics } from '@app/metrics';
import { RedisConnection } from '@app/redis';

/** Below the chart's readiness probe timeout (3 s), so the probe gets our answer rather than its own timeout. */
const CHECK_TIMEOUT_MS = 2000;

type Status = 'up' | 'down';
type Checks = Record<string, { status: Status }>;
export interface Liveness {
  status: 'ok';
}
export interface Readiness {
  /** degraded: an optional dependency (Redis) is down; the pod still serves, with limits counted per process. */
  status: 'ok' | 'degraded';
  checks: Checks;
}

/**
 * Readiness answers with each dependency's status only: the reasons (driver messages that name
 * hosts) go to the log, once per change, not to whoever can reach the probe. Only the database
 * makes a pod unready. Redis is optional (rate limits and attempt counters fall back to process
 * memory): were it counted, a Redis outage would take every pod out of the Service at once,
 * while each could serve. It is reported instead, in the body and in pwpush_dependency_up,
 * which runs the same checks at each scrape.
 */
@Injectable()
export class HealthService {
  private readonly logger = new Logger('Health');
  private lastFailing = '';

  constructor(
    private readonly database: TypeOrmHealthIndicator,
    private readonly indicators: HealthIndicatorService,
    private readonly redis: RedisConnection,
    metrics: Metrics,
  ) {
    metrics.watchDependencies(async () => {
      const checks = await this.check();
      return Object.fromEntries(Object.entries(checks).map(([name, { status }]) => [name, status === 'up']));
    });
  }

  live(): Liveness {
    return { status: 'ok' };
  }

  async ready(): Promise<Readiness> {
    const checks = await this.check();
    if (checks.database?.status !== 'up')
      throw new ServiceUnavailableError('Not ready: database unreachable.', { status: 'error', checks });
    return { status: Object.values(checks).every((check) => check.status === 'up') ? 'ok' : 'degraded', checks };
  }

  private async check(): Promise<Checks> {
    const probes: Promise<HealthIndicatorResult>[] = [this.database.pingCheck('database', { timeout: CHECK_TIMEOUT_MS })];
    if (this.redis.configured) probes.push(this.redisCheck());
    const details: HealthIndicatorResult = Object.assign({}, ...(await Promise.all(probes))) as HealthIndicatorResult;
    this.noteFailing(details);
    return Object.fromEntries(Object.entries(details).map(([name, value]) => [name, { status: value.status === 'up' ? 'up' : 'down' }]));
  }

  private async redisCheck(): Promise<HealthIndicatorResult<'redis'>> {
    const check = this.indicators.check('redis');
    try {
      await Promise.race([this.redis.ping(), rejectAfter(CHECK_TIMEOUT_MS)]);
      return check.up();
    } catch (error) {
      return check.down({ message: error instanceof Error ? error.message : 'unreachable' });
    }
  }

  private noteFailing(details: HealthIndicatorResult): void {
    const failing = Object.keys(details).filter((name) => details[name]?.status !== 'up');
    const key = failing.join(',');
    if (key === this.lastFailing) return;
    this.lastFailing = key;
    if (failing.length === 0) return this.logger.log('Ready: every dependency answers again.');
    const reasons = failing.map((name) => {
      const message = (details[name] as { message?: unknown } | undefined)?.message;
      return `${name}: ${typeof message === 'string' ? message : 'down'}`;
    });
    if (failing.includes('database')) this.logger.warn(`Not ready: ${reasons.join('; ')}`);
    else this.logger.warn(`Degraded (still ready; rate limits and attempt counters are per process): ${reasons.join('; ')}`);
  }
}

function rejectAfter(ms: number): Promise<never> {
  return new Promise((_, reject) => setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms).unref());
}
