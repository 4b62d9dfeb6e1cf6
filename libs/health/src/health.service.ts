import { Injectable, Logger, ServiceUnavailableException } from '@nestjs/common';
import {
  HealthCheckService,
  HealthIndicatorFunction,
  HealthIndicatorResult,
  HealthIndicatorService,
  TypeOrmHealthIndicator,
} from '@nestjs/terminus';
import { ServiceUnavailableError } from '@app/common';
import { RedisConnection } from '@app/redis';

/** Below the chart's readiness probe timeout (3 s), so the probe gets our answer rather than its own timeout. */
const CHECK_TIMEOUT_MS = 2000;

type Status = 'up' | 'down';
export interface Liveness {
  status: 'ok';
}
export interface Readiness {
  status: 'ok';
  checks: Record<string, { status: Status }>;
}

/**
 * Readiness answers with each dependency's status only: the reasons (driver messages that name
 * hosts) go to the log, once per change, not to whoever can reach the probe.
 */
@Injectable()
export class HealthService {
  private readonly logger = new Logger('Health');
  private lastFailing = '';

  constructor(
    private readonly checks: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
    private readonly indicators: HealthIndicatorService,
    private readonly redis: RedisConnection,
  ) {}

  live(): Liveness {
    return { status: 'ok' };
  }

  async ready(): Promise<Readiness> {
    const probes: HealthIndicatorFunction[] = [() => this.database.pingCheck('database', { timeout: CHECK_TIMEOUT_MS })];
    if (this.redis.configured) probes.push(() => this.redisCheck());
    try {
      const result = await this.checks.check(probes);
      this.noteFailing([]);
      return { status: 'ok', checks: statuses(result.details) };
    } catch (error) {
      if (!(error instanceof ServiceUnavailableException)) throw error;
      const details = (error.getResponse() as { details?: HealthIndicatorResult }).details ?? {};
      const failing = Object.keys(details).filter((name) => details[name]?.status !== 'up');
      this.noteFailing(failing, details);
      throw new ServiceUnavailableError(`Not ready: ${failing.join(' and ')} unreachable.`, { status: 'error', checks: statuses(details) });
    }
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

  private noteFailing(failing: string[], details: HealthIndicatorResult = {}): void {
    const key = failing.join(',');
    if (key === this.lastFailing) return;
    this.lastFailing = key;
    if (failing.length === 0) {
      this.logger.log('Ready: every dependency answers again.');
    } else {
      const reasons = failing.map((name) => {
        const message = (details[name] as { message?: unknown } | undefined)?.message;
        return `${name}: ${typeof message === 'string' ? message : 'down'}`;
      });
      this.logger.warn(`Not ready: ${reasons.join('; ')}`);
    }
  }
}

function statuses(details: HealthIndicatorResult): Record<string, { status: Status }> {
  return Object.fromEntries(Object.entries(details).map(([name, value]) => [name, { status: value.status === 'up' ? 'up' : 'down' }]));
}

function rejectAfter(ms: number): Promise<never> {
  return new Promise((_, reject) => setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms).unref());
}
