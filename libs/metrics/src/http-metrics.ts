import type { Request, Response } from 'express';
import type { Metrics } from './metrics';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * The route template Express matched (`/api/v2/pushes/:url_token`), never the concrete path.
 * Requests no route took (answered before routing, or by Nest's catch-all not-found route
 * `/{*path}`) are `unmatched`.
 */
export function routeLabel(request: Request): string {
  const path = (request.route as { path?: unknown } | undefined)?.path;
  if (typeof path !== 'string' || path === '*' || path.includes('{*')) return 'unmatched';
  return `${request.baseUrl}${path}`;
}

export function methodLabel(method: string | undefined): string {
  const upper = (method ?? '').toUpperCase();
  return METHODS.has(upper) ? upper : 'OTHER';
}

export function statusClassLabel(status: number): string {
  return status >= 100 && status < 600 ? `${Math.floor(status / 100)}xx` : 'other';
}

/**
 * Records an answered request's duration under its route template, method and status class.
 * Requests answered before routing (404s, malformed bodies) are `unmatched`.
 */
export function recordRequest(metrics: Metrics, request: Request, response: Response, seconds: number): void {
  metrics.observeRequest(routeLabel(request), methodLabel(request.method), statusClassLabel(response.statusCode), seconds);
}
