import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { InjectSettings, Settings } from '@app/config';
import { Metrics, METRICS_CONTENT_TYPE } from './metrics';
import { METRICS_TOKEN_REQUIRED, MetricsToken } from './metrics-token.guard';

/**
 * /metrics on METRICS_PORT, a listener of its own that serves nothing else: an ingress routes to
 * the service's HTTP port, so what it can reach never includes the metrics (PORT then answers
 * /metrics with 404). Plain node:http rather than a second Nest app: one route, no body, the
 * same METRICS_TOKEN check.
 */
@Injectable()
export class MetricsServer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly server: Server = createServer((request, response) => void this.answer(request, response));

  constructor(
    private readonly metrics: Metrics,
    private readonly token: MetricsToken,
    @InjectSettings() private readonly settings: Settings,
  ) {}

  /** The port it listens on (METRICS_PORT, or the one the system chose for 0). */
  get port(): number {
    return (this.server.address() as { port: number }).port;
  }

  async onApplicationBootstrap(): Promise<void> {
    const port = this.settings.metricsPort ?? 0;
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', (error: Error & { code?: string }) =>
        reject(new Error(`Cannot serve metrics on METRICS_PORT=${port} (${error.code ?? error.message}).`)),
      );
      this.server.listen(port, () => resolve());
    });
    new Logger('Metrics').log(`Serving /metrics on port ${this.port} (and not on PORT).`);
  }

  async onApplicationShutdown(): Promise<void> {
    if (!this.server.listening) return;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    // A scrape can be repeated: nothing to drain.
    this.server.closeAllConnections();
    await closed;
  }

  private async answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    response.setHeader('Cache-Control', 'no-store');
    response.setHeader('X-Content-Type-Options', 'nosniff');
    const path = (request.url ?? '').split('?')[0];
    if (path !== '/metrics') return json(response, 404, { error: 'not-found' });
    if (request.method !== 'GET' && request.method !== 'HEAD')
      return json(response, 405, { error: 'Method not allowed.' }, { Allow: 'GET, HEAD' });
    if (!this.token.accepts(request.headers.authorization))
      return json(response, 401, { error: METRICS_TOKEN_REQUIRED }, { 'WWW-Authenticate': 'Bearer' });
    try {
      const body = await this.metrics.exposition();
      response.writeHead(200, { 'Content-Type': METRICS_CONTENT_TYPE });
      response.end(request.method === 'HEAD' ? undefined : body);
    } catch {
      json(response, 500, { error: 'internal-error' });
    }
  }
}

function json(response: ServerResponse, status: number, body: object, headers: Record<string, string> = {}): void {
  response.writeHead(status, { ...headers, 'Content-Type': 'application/json; charset=utf-8' });
  response.end(JSON.stringify(body));
}
