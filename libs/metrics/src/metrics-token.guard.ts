import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';
import { UnauthenticatedError } from '@app/common';
import { InjectSettings, Settings } from '@app/config';

const digest = (value: string) => createHash('sha256').update(value).digest();

/** With METRICS_TOKEN set, /metrics needs `Authorization: Bearer <METRICS_TOKEN>`. */
@Injectable()
export class MetricsTokenGuard implements CanActivate {
  private readonly expected?: Buffer;

  constructor(@InjectSettings() settings: Settings) {
    this.expected = settings.metricsToken === undefined ? undefined : digest(settings.metricsToken);
  }

  canActivate(context: ExecutionContext): boolean {
    if (!this.expected) return true;
    const header = context.switchToHttp().getRequest<Request>().get('authorization') ?? '';
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    // Digests have equal lengths, so the comparison is constant-time whatever was sent.
    if (match && timingSafeEqual(digest(match[1]), this.expected)) return true;
    throw new UnauthenticatedError('Metrics require Authorization: Bearer <METRICS_TOKEN>.');
  }
}
