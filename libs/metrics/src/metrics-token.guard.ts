import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';
import { UnauthenticatedError } from '@app/common';
import { InjectSettings, Settings } from '@app/config';

export const METRICS_TOKEN_REQUIRED = 'Metrics require Authorization: Bearer <METRICS_TOKEN>.';

const digest = (value: string) => createHash('sha256').update(value).digest();

/** METRICS_TOKEN, checked the same way on PORT and on METRICS_PORT. */
@Injectable()
export class MetricsToken {
  private readonly expected?: Buffer;

  constructor(@InjectSettings() settings: Settings) {
    this.expected = settings.metricsToken === undefined ? undefined : digest(settings.metricsToken);
  }

  /** Whether an Authorization header may scrape: anything without a METRICS_TOKEN, else `Bearer <METRICS_TOKEN>`. */
  accepts(authorization: string | undefined): boolean {
    if (!this.expected) return true;
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
    // Digests have equal lengths, so the comparison is constant-time whatever was sent.
    return match !== null && timingSafeEqual(digest(match[1]), this.expected);
  }
}

/** With METRICS_TOKEN set, /metrics needs `Authorization: Bearer <METRICS_TOKEN>`. */
@Injectable()
export class MetricsTokenGuard implements CanActivate {
  constructor(private readonly token: MetricsToken) {}

  canActivate(context: ExecutionContext): boolean {
    if (this.token.accepts(context.switchToHttp().getRequest<Request>().get('authorization'))) return true;
    throw new UnauthenticatedError(METRICS_TOKEN_REQUIRED);
  }
}
