import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import type { Settings } from '@app/config';

/** Who is calling, as far as the audit log and link building need to know. */
export interface ClientInfo {
  /** Peer address, or X-Forwarded-For's client when the peer is a trusted proxy (Express "trust proxy"). */
  ip: string;
  userAgent: string;
  referrer: string;
  /** scheme://host[:port] of this request, trusted-proxy aware. */
  baseUrl: string;
}

const FIELD_LIMIT = 255;

export function clientInfoOf(request: Request): ClientInfo {
  return {
    ip: request.ip ?? request.socket.remoteAddress ?? '',
    userAgent: (request.get('user-agent') ?? '').slice(0, FIELD_LIMIT),
    referrer: (request.get('referer') ?? '').slice(0, FIELD_LIMIT),
    baseUrl: `${request.protocol}://${request.host}`,
  };
}

/** The base of every link the API answers: PWP__OVERRIDE_BASE_URL when set, else the request's own. */
export function publicBaseUrl(settings: Pick<Settings, 'overrideBaseUrl'>, client: Pick<ClientInfo, 'baseUrl'>): string {
  return settings.overrideBaseUrl ?? client.baseUrl;
}

export const Client = createParamDecorator((_: unknown, context: ExecutionContext) => clientInfoOf(context.switchToHttp().getRequest<Request>()));
