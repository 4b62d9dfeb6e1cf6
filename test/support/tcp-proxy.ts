import { createConnection, createServer, Server, Socket } from 'node:net';

interface Pair {
  client: Socket;
  upstream?: Socket;
}

/**
 * A TCP proxy on 127.0.0.1 (or ::1) in front of a shared service (MariaDB, Redis), so a test can take the
 * service away from the app without touching the service itself:
 * - `cut('refuse')`: every connection is reset and the port stops listening (a crashed server);
 * - `cut('blackhole')`: connections stay open but nothing flows either way, and new ones are
 *   accepted and then ignored (a network partition or a stalled server);
 * - `restore()`: traffic flows again; bytes held back by a blackhole are delivered, as TCP would.
 */
export class TcpProxy {
  private readonly pairs = new Set<Pair>();
  private server?: Server;
  private mode: 'open' | 'refuse' | 'blackhole' = 'open';

  private constructor(
    private readonly target: { host: string; port: number },
    private readonly host: string,
    public port = 0,
  ) {}

  static async start(target: { host: string; port: number }, host = '127.0.0.1'): Promise<TcpProxy> {
    const proxy = new TcpProxy(target, host);
    await proxy.listen();
    return proxy;
  }

  /** `url` with its host and port replaced by the proxy's. */
  via(url: string): string {
    const parsed = new URL(url);
    parsed.hostname = this.host.includes(':') ? `[${this.host}]` : this.host;
    parsed.port = String(this.port);
    return parsed.toString();
  }

  async cut(mode: 'refuse' | 'blackhole'): Promise<void> {
    this.mode = mode;
    if (mode === 'blackhole') {
      for (const pair of this.pairs) {
        pair.client.pause();
        pair.upstream?.pause();
      }
      return;
    }
    for (const pair of this.pairs) this.drop(pair);
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = undefined;
  }

  async restore(): Promise<void> {
    const previous = this.mode;
    this.mode = 'open';
    if (previous === 'refuse') return this.listen();
    for (const pair of this.pairs) {
      if (!pair.upstream) this.connectUpstream(pair);
      pair.client.resume();
      pair.upstream?.resume();
    }
  }

  async close(): Promise<void> {
    for (const pair of this.pairs) this.drop(pair);
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private listen(): Promise<void> {
    const server = createServer((client) => this.accept(client));
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, this.host, () => {
        this.port = (server.address() as { port: number }).port;
        resolve();
      });
    });
  }

  private accept(client: Socket): void {
    const pair: Pair = { client };
    this.pairs.add(pair);
    client.on('error', () => this.drop(pair));
    client.on('close', () => this.drop(pair));
    if (this.mode === 'blackhole') {
      client.pause();
      return;
    }
    this.connectUpstream(pair);
  }

  private connectUpstream(pair: Pair): void {
    const upstream = createConnection(this.target);
    pair.upstream = upstream;
    upstream.on('error', () => this.drop(pair));
    upstream.on('close', () => this.drop(pair));
    // Forwarding by hand rather than pipe(): a paused socket must stay paused while blackholed.
    pair.client.on('data', (chunk) => upstream.write(chunk));
    upstream.on('data', (chunk) => pair.client.write(chunk));
  }

  private drop(pair: Pair): void {
    if (!this.pairs.delete(pair)) return;
    pair.client.destroy();
    pair.upstream?.destroy();
  }
}
