import type { WebhookSettings } from '@app/config';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import * as http from 'node:http';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { promisify } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { DeliveryResult, NO_ANSWER, ResolveHost, WebhookSender } from './webhook-sender';
import { newWebhookSecret, signWebhook } from './webhook-signature';

/** What a local receiver saw of one request. */
interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  servername?: TLSSocket['servername'];
}

type Respond = (request: http.IncomingMessage, response: http.ServerResponse) => void;

/** A real receiver on 127.0.0.1: records what reaches it, answers as the test says. */
class Receiver {
  readonly received: Received[] = [];
  connections = 0;
  respond: Respond = (_request, response) => response.end('thanks');

  private constructor(private readonly server: http.Server) {
    server.on('connection', () => this.connections++);
    server.on('request', (request: http.IncomingMessage, response: http.ServerResponse) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const servername = (request.socket as TLSSocket).servername;
        this.received.push({ path: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString(), servername });
        this.respond(request, response);
      });
    });
  }

  static async start(server: http.Server): Promise<Receiver> {
    const receiver = new Receiver(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  url(path = '/hook', host = '127.0.0.1'): string {
    const scheme = this.server instanceof https.Server ? 'https' : 'http';
    return `${scheme}://${host}:${this.port}${path}`;
  }

  reset(): void {
    this.received.length = 0;
    this.connections = 0;
    this.respond = (_request, response) => response.end('thanks');
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

/** A self-signed certificate for localhost, hooks.test and 127.0.0.1, made by openssl for this run only. */
async function selfSignedCertificate(): Promise<{ cert: string; key: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'webhook-sender-'));
  try {
    const [cert, key] = [join(dir, 'cert.pem'), join(dir, 'key.pem')];
    await promisify(execFile)('openssl', [
      'req',
      ...['-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1'],
      ...['-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,DNS:hooks.test,IP:127.0.0.1'],
      ...['-keyout', key, '-out', cert],
    ]);
    return { cert: await readFile(cert, 'utf8'), key: await readFile(key, 'utf8') };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const settings = (overrides: Partial<WebhookSettings> = {}): WebhookSettings => ({
  allowHttp: false,
  allowedHosts: [],
  timeoutMs: 5_000,
  ...overrides,
});

const BODY = JSON.stringify({ type: 'push.viewed', timestamp: '2026-01-02T03:04:05Z', data: { url_token: 'abc123', kind: 'text' } });
const REFUSED_ADDRESS = 'a private, loopback, link-local or metadata address';

describe('WebhookSender', () => {
  let ca: string;
  let receiver: Receiver;
  let plainReceiver: Receiver;

  beforeAll(async () => {
    const certificate = await selfSignedCertificate();
    ca = certificate.cert;
    receiver = await Receiver.start(https.createServer(certificate));
    plainReceiver = await Receiver.start(http.createServer());
  });

  afterAll(async () => {
    await receiver.stop();
    await plainReceiver.stop();
  });

  beforeEach(() => {
    receiver.reset();
    plainReceiver.reset();
  });

  /** A sender trusting the test certificate, allowed to reach 127.0.0.1 unless the test says otherwise. */
  const senderWith = (overrides: Partial<WebhookSettings> = {}, resolveHost?: ResolveHost) =>
    new WebhookSender(settings({ allowedHosts: ['127.0.0.1'], ...overrides }), { ca, resolveHost });

  /** Not even a TCP connection reached these receivers. */
  const expectNothingReached = (...receivers: Receiver[]) => {
    for (const r of receivers) expect({ connections: r.connections, requests: r.received.length }).toEqual({ connections: 0, requests: 0 });
  };

  describe('delivering', () => {
    it('posts the signed JSON body, which a Standard Webhooks verifier accepts', async () => {
      const secret = newWebhookSecret();
      const headers = signWebhook({ id: 'msg_1', timestamp: new Date(), body: BODY, secret });

      const result = await senderWith().send({ url: receiver.url('/hook?source=pwpush'), headers, body: BODY });

      expect(result).toEqual({ ok: true, status: 200 });
      expect(receiver.received).toHaveLength(1);
      const [received] = receiver.received;
      expect(received.path).toBe('/hook?source=pwpush');
      expect(received.body).toBe(BODY);
      expect(received.headers).toMatchObject({ 'content-type': 'application/json', 'user-agent': 'pwpush-api-webhooks' });
      expect(new Webhook(secret).verify(received.body, received.headers as Record<string, string>)).toEqual(JSON.parse(BODY));
    });

    it('counts any 2xx as delivered', async () => {
      receiver.respond = (_request, response) => response.writeHead(204).end();
      expect(await senderWith().send({ url: receiver.url(), headers: {}, body: BODY })).toEqual({ ok: true, status: 204 });
    });

    it('resolves once and connects to the address it checked, keeping the name for TLS (SNI, certificate) and Host', async () => {
      // No DNS knows hooks.test (a reserved name): reaching the receiver proves the connection used the checked answer.
      const asked: string[] = [];
      const resolveHost: ResolveHost = async (hostname) => {
        asked.push(hostname);
        return [{ address: '127.0.0.1', family: 4 }];
      };

      const result = await senderWith({}, resolveHost).send({ url: receiver.url('/hook', 'hooks.test'), headers: {}, body: BODY });

      expect(result).toEqual({ ok: true, status: 200 });
      expect(asked).toEqual(['hooks.test']);
      expect(receiver.received[0]).toMatchObject({ servername: 'hooks.test', headers: { host: `hooks.test:${receiver.port}` } });
    });

    it('checks the certificate against the name, not the address it connects to', async () => {
      const resolveHost: ResolveHost = async () => [{ address: '127.0.0.1', family: 4 }];
      const result = await senderWith({}, resolveHost).send({ url: receiver.url('/hook', 'other.test'), headers: {}, body: BODY });
      expect(result).toEqual({ ok: false, error: NO_ANSWER, detail: 'connection failed (ERR_TLS_CERT_ALTNAME_INVALID)' });
      expect(receiver.received).toHaveLength(0);
    });

    it('verifies the certificate: a receiver the system does not trust is a failed delivery', async () => {
      const sut = new WebhookSender(settings({ allowedHosts: ['127.0.0.1'] }));
      expect(await sut.send({ url: receiver.url(), headers: {}, body: BODY })).toEqual({
        ok: false,
        error: NO_ANSWER,
        detail: 'connection failed (DEPTH_ZERO_SELF_SIGNED_CERT)',
      });
      expect(receiver.received).toHaveLength(0);
    });
  });

  describe('refusing before connecting', () => {
    it.each(['127.0.0.1', '169.254.169.254', '10.1.2.3', '[::1]', '[::ffff:127.0.0.1]', '2130706433'])(
      'refuses the literal address %s unless allowedHosts names it',
      async (host) => {
        const result = await new WebhookSender(settings(), { ca }).send({
          url: `https://${host}:${receiver.port}/hook`,
          headers: {},
          body: BODY,
        });
        expect(result).toEqual({ ok: false, error: `refused: URL must not point to ${REFUSED_ADDRESS}`, final: true });
        expectNothingReached(receiver);
      },
    );

    it('refuses a name that resolves to loopback (localhost), without connecting', async () => {
      const result = await new WebhookSender(settings(), { ca }).send({ url: receiver.url('/hook', 'localhost'), headers: {}, body: BODY });
      expect(result).toEqual({ ok: false, error: `refused: resolves to ${REFUSED_ADDRESS}`, final: true });
      expectNothingReached(receiver);
    });

    it('refuses a name when any of its addresses is refused, whichever comes first', async () => {
      const resolveHost: ResolveHost = async () => [
        { address: '93.184.215.14', family: 4 },
        { address: '169.254.169.254', family: 4 },
      ];
      const result = await new WebhookSender(settings(), { ca, resolveHost }).send({
        url: 'https://hooks.example.com/hook',
        headers: {},
        body: BODY,
      });
      expect(result).toEqual({ ok: false, error: `refused: resolves to ${REFUSED_ADDRESS}`, final: true });
    });

    it('lets a name that allowedHosts names resolve to a private address', async () => {
      const sut = new WebhookSender(settings({ allowedHosts: ['localhost'] }), { ca });
      expect(await sut.send({ url: receiver.url('/hook', 'localhost'), headers: {}, body: BODY })).toEqual({ ok: true, status: 200 });
    });

    it('refuses http unless allowHttp is set', async () => {
      const refused = await senderWith().send({ url: plainReceiver.url(), headers: {}, body: BODY });
      expect(refused).toEqual({ ok: false, error: 'refused: URL must use https', final: true });
      expectNothingReached(plainReceiver);

      const delivered = await senderWith({ allowHttp: true }).send({ url: plainReceiver.url(), headers: {}, body: BODY });
      expect(delivered).toEqual({ ok: true, status: 200 });
      expect(plainReceiver.received).toHaveLength(1);
    });

    it.each([
      ['fails', async () => Promise.reject(Object.assign(new Error('getaddrinfo ENOTFOUND hooks.example.com'), { code: 'ENOTFOUND' })), 'DNS lookup failed'],
      ['answers no address', async () => [], 'DNS lookup found no address'],
    ] as [string, ResolveHost, string][])('tells the owner no more than of any other network failure when the lookup %s', async (_case, resolveHost, detail) => {
      const result = await new WebhookSender(settings(), { resolveHost }).send({
        url: 'https://hooks.example.com/hook',
        headers: {},
        body: BODY,
      });
      expect(result).toEqual({ ok: false, error: NO_ANSWER, detail });
    });
  });

  describe('failed deliveries', () => {
    it('reports a redirect without following it', async () => {
      receiver.respond = (_request, response) => response.writeHead(302, { location: receiver.url('/elsewhere') }).end();
      const result = await senderWith().send({ url: receiver.url(), headers: {}, body: BODY });
      expect(result).toEqual({ ok: false, status: 302, error: 'redirect not followed (HTTP 302)' });
      expect(receiver.received.map((r) => r.path)).toEqual(['/hook']);
    });

    it('reports an error status with the status', async () => {
      receiver.respond = (_request, response) => response.writeHead(500).end('database down at 10.0.0.7');
      expect(await senderWith().send({ url: receiver.url(), headers: {}, body: BODY })).toEqual({
        ok: false,
        status: 500,
        error: 'HTTP 500',
      });
    });

    it('reports a receiver that does not answer in time as any network failure (a timeout for the log)', async () => {
      receiver.respond = () => {}; // never answers
      const started = Date.now();
      const result = await senderWith({ timeoutMs: 300 }).send({ url: receiver.url(), headers: {}, body: BODY });
      expect(result).toEqual({ ok: false, error: NO_ANSWER, detail: 'timeout' });
      expect(Date.now() - started).toBeGreaterThanOrEqual(250);
      expect(Date.now() - started).toBeLessThan(3_000);
    });

    it('reports a slow DNS answer as any network failure (a timeout for the log)', async () => {
      const resolveHost: ResolveHost = () => new Promise(() => {});
      const result = await new WebhookSender(settings({ timeoutMs: 300 }), { resolveHost }).send({
        url: 'https://hooks.example.com/',
        headers: {},
        body: BODY,
      });
      expect(result).toEqual({ ok: false, error: NO_ANSWER, detail: 'timeout' });
    });

    it('reports a refused connection as any network failure, its code for the log only', async () => {
      const closedPort = await new Promise<number>((resolve) => {
        const server = http.createServer().listen(0, '127.0.0.1', () => {
          const { port } = server.address() as AddressInfo;
          server.close(() => resolve(port));
        });
      });
      const result = await senderWith().send({ url: `https://127.0.0.1:${closedPort}/hook`, headers: {}, body: BODY });
      expect(result).toEqual({ ok: false, error: NO_ANSWER, detail: 'connection failed (ECONNREFUSED)' });
    });
  });

  it('reads no more than a few KiB of an endless answer, then hangs up', async () => {
    let written = 0;
    const hungUp = new Promise<void>((resolve) => {
      receiver.respond = (_request, response) => {
        const chunk = Buffer.alloc(64 * 1024, 'x');
        const pump = () => {
          while (!response.destroyed && response.write(chunk)) written += chunk.length;
        };
        response.writeHead(200, { 'content-type': 'text/plain' });
        response.on('drain', pump);
        response.on('close', () => resolve());
        pump();
      };
    });
    const started = Date.now();

    const result: DeliveryResult = await senderWith({ timeoutMs: 10_000 }).send({ url: receiver.url(), headers: {}, body: BODY });

    expect(result).toEqual({ ok: true, status: 200 });
    expect(Date.now() - started).toBeLessThan(3_000);
    await hungUp;
    // What the kernel's socket buffers took, not what the sender kept: far below the seconds of data it could have read.
    expect(written).toBeLessThan(16 * 1024 * 1024);
  });
});
