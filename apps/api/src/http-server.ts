import type { Server } from 'node:http';
import type { RequestBodies } from '@app/common';
import type { HttpSettings } from '@app/config';

/** Node checks its header timeout on a timer of this period (30 s by default, which would stretch a 10 s timeout to 40). */
const CHECK_EVERY_MS = 1_000;

/**
 * How long the server waits for a client. Called before the server listens: Node starts its
 * timeout checker then, with the period set here.
 *
 * - Headers: HTTP_HEADERS_TIMEOUT_MS from a request's first byte, enforced by Node (408, closed).
 * - Bodies: Node's own request timeout counts the whole request, so it cannot let a 500 MiB
 *   upload run while stopping a stalled 1 KB JSON body; it is off, and RequestBodies' deadline,
 *   started for every request with a body as it arrives, takes its place.
 * - Idle keep-alive connections: HTTP_KEEP_ALIVE_TIMEOUT_MS, above the proxy's own (the ingress
 *   keeps upstream connections 60 s), so that the proxy never sends on a connection we are closing.
 */
export function configureHttpServer(server: Server, settings: HttpSettings, bodies: RequestBodies): void {
  server.headersTimeout = settings.headersTimeoutMs;
  server.requestTimeout = 0;
  server.keepAliveTimeout = settings.keepAliveTimeoutMs;
  Object.assign(server, { connectionsCheckingInterval: Math.min(CHECK_EVERY_MS, settings.headersTimeoutMs) });
  server.on('request', bodies.limitTime);
}
