import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import express, { type Request, type Response } from 'express';
import { FloorCipher } from './cipher';
import { nestFloor } from './nest-floor';
import { type FloorStore, mysqlStore, postgresStore, type PushRow, sqliteStore } from './store';

/**
 * The floor: the service's create, retrieve and preview done by hand on node:http and the same
 * database driver, with no framework, validation library, ORM or logger. It writes the same rows
 * (encrypted payload, audit entries, compare-and-set view claim) and answers the same JSON
 * shapes, so the service's figures can be read against what the stack itself allows.
 *
 * With FLOOR_FRAMEWORK=express the same handlers run on bare Express 5, the HTTP framework under
 * the service's Nest: what is left between that floor and the service is Nest and the service's
 * own policies (auth, rate limits, validation, logging, metrics, security headers). With
 * FLOOR_FRAMEWORK=nest they run in a bare Nest controller on that Express (nest-floor.ts), which
 * splits the two: Nest's own cost, then the policies'.
 *
 * Started by bench/run.ts: FLOOR_PORT, FLOOR_DATABASE_URL (sqlite:<path>, mysql://... or postgres://...),
 * FLOOR_MASTER_KEY (64 hex), FLOOR_FRAMEWORK (http, the default, express or nest).
 */

const DAY_MS = 86_400_000;
const BODY_LIMIT = 16 * 1024 * 1024;
const AUDIT_CAP = 2000;
const JSON_TYPE = 'application/json; charset=utf-8';

interface Client {
  ip: string;
  userAgent: string;
  referrer: string;
  baseUrl: string;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
  ) {
    super(String(body.error));
  }
}

const iso = (ms: number) => new Date(ms).toISOString();
const htmlUrl = (row: Pick<PushRow, 'url_token' | 'retrieval_step'>, base: string) => `${base}/p/${row.url_token}${row.retrieval_step ? '/r' : ''}`;

function pushJson(row: Omit<PushRow, 'id'>, now: number, base: string) {
  return {
    url_token: row.url_token,
    kind: row.kind,
    expire_after_days: row.expire_after_days,
    expire_after_views: row.expire_after_views,
    expired: row.expired === 1,
    expired_on: row.expired_on === null ? null : iso(row.expired_on),
    deleted: row.deleted === 1,
    deletable_by_viewer: row.deletable_by_viewer === null ? null : row.deletable_by_viewer === 1,
    retrieval_step: row.retrieval_step === 1,
    passphrase_protected: row.passphrase_protected === 1,
    days_remaining: Math.max(row.expire_after_days - Math.floor((now - row.created_at) / DAY_MS), 0),
    views_remaining: Math.max(row.expire_after_views - row.view_count, 0),
    expires_at: iso(row.expires_at),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    html_url: htmlUrl(row, base),
    json_url: `${base}/api/v2/pushes/${row.url_token}`,
  };
}

function limit(value: unknown, field: string, min: number, max: number, fallback: number): number {
  if (value === undefined || value === null) return fallback;
  const n = typeof value === 'string' && /^\s*-?\d{1,15}\s*$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max) {
    throw new HttpError(422, { error: `${field} must be between ${min} and ${max}.`, errors: { [field]: ['out of range'] } });
  }
  return n;
}

function flag(value: unknown, fallback: boolean): boolean {
  if (value === undefined || value === null) return fallback;
  if (value === true || value === 'true' || value === 1 || value === '1') return true;
  if (value === false || value === 'false' || value === 0 || value === '0') return false;
  throw new HttpError(422, { error: 'must be true or false.' });
}

class Floor {
  constructor(
    private readonly store: FloorStore,
    private readonly cipher: FloorCipher,
  ) {}

  async create(body: unknown, client: Client) {
    const push = (body as { push?: Record<string, unknown> } | null)?.push;
    if (typeof push !== 'object' || push === null) throw new HttpError(400, { error: 'param is missing or the value is empty or invalid: push' });
    const { payload } = push;
    if (typeof payload !== 'string' || payload.trim() === '') throw new HttpError(422, { error: 'Payload is required.', errors: { payload: ['Payload is required.'] } });
    const now = Date.now();
    const urlToken = randomBytes(18).toString('base64url');
    const days = limit(push.expire_after_days, 'expire_after_days', 1, 90, 7);
    const row = {
      url_token: urlToken,
      kind: 'text',
      name: typeof push.name === 'string' ? push.name : null,
      payload: this.cipher.encrypt(payload, `payload:${urlToken}`),
      note: typeof push.note === 'string' && push.note ? this.cipher.encrypt(push.note, `note:${urlToken}`) : null,
      passphrase_hash: null,
      passphrase_protected: 0,
      expire_after_days: days,
      expire_after_views: limit(push.expire_after_views, 'expire_after_views', 1, 100, 5),
      deletable_by_viewer: flag(push.deletable_by_viewer, true) ? 1 : 0,
      retrieval_step: flag(push.retrieval_step, true) ? 1 : 0,
      expires_at: now + days * DAY_MS,
      created_at: now,
      updated_at: now,
    };
    const id = await this.store.insertPush(row);
    await this.audit(id, 'creation', client, now);
    const created = { ...row, view_count: 0, expired: 0, deleted: 0, expired_on: null };
    return { ...pushJson(created, now, client.baseUrl), name: row.name, note: typeof push.note === 'string' && push.note ? push.note : null };
  }

  async retrieve(urlToken: string, client: Client) {
    for (;;) {
      let row = await this.store.findByToken(urlToken);
      if (!row) throw new HttpError(404, { error: 'not-found' });
      const now = Date.now();
      if (!row.expired && now >= row.expires_at) {
        await this.store.expire(row.id, now);
        row = (await this.store.findByToken(urlToken)) ?? row;
      }
      if (row.expired) {
        if (await this.store.countAuditEntry(row.id, AUDIT_CAP)) await this.audit(row.id, 'failed_view', client, now);
        return { ...pushJson(row, now, client.baseUrl), payload: null, files: [] };
      }
      if (await this.store.claimView(row, now)) {
        const payload = row.payload === null ? null : this.cipher.decrypt(row.payload, `payload:${row.url_token}`);
        await this.audit(row.id, 'view', client, now);
        return { ...pushJson({ ...row, view_count: row.view_count + 1, updated_at: now }, now, client.baseUrl), payload, files: [] };
      }
    }
  }

  async preview(urlToken: string, client: Client) {
    const row = await this.store.findLinkByToken(urlToken);
    if (!row) throw new HttpError(404, { error: 'not-found' });
    return { url: htmlUrl(row, client.baseUrl) };
  }

  private audit(pushId: number, kind: string, client: Client, at: number) {
    return this.store.appendAudit({ pushId, kind, ip: client.ip, userAgent: client.userAgent, referrer: client.referrer, at });
  }
}

function readBody(request: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > BODY_LIMIT) reject(new HttpError(413, { error: 'Request body is too large.' }));
      else chunks.push(chunk);
    });
    request.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch {
        reject(new HttpError(400, { error: 'Malformed request body: expected valid JSON.' }));
      }
    });
    request.on('error', reject);
  });
}

function send(response: ServerResponse, status: number, body: unknown, noStore = false): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'Content-Type': JSON_TYPE,
    'Content-Length': Buffer.byteLength(text),
    'X-Request-Id': randomUUID(),
    ...(noStore ? { 'Cache-Control': 'no-store' } : {}),
  });
  response.end(text);
}

/** A constant of the service's version document's size: the floor has no settings to reflect. */
const VERSION = {
  application_version: '0.1.0',
  api_version: '2.1',
  edition: 'oss',
  features: {
    anonymous_access: true,
    api_token_authentication: true,
    accounts: { enabled: false },
    pushes: {
      enabled: true,
      email_auto_dispatch: false,
      file_attachments: { enabled: false, requires_authentication: true },
      url_pushes: { enabled: true },
      qr_code_pushes: { enabled: true },
    },
    requests: { enabled: false },
  },
};

const PUSH_PATH = /^\/api\/v2\/pushes\/([A-Za-z0-9_-]+)(\/preview)?$/;

function clientOf(request: IncomingMessage): Client {
  return {
    ip: request.socket.remoteAddress ?? '',
    userAgent: (request.headers['user-agent'] ?? '').slice(0, 255),
    referrer: (request.headers.referer ?? '').slice(0, 255),
    baseUrl: `http://${request.headers.host}`,
  };
}

function fail(response: ServerResponse, error: unknown): void {
  if (error instanceof HttpError) return send(response, error.status, error.body);
  process.stderr.write(`floor: ${error instanceof Error ? error.name : 'error'}\n`);
  send(response, 500, { error: 'Internal server error' });
}

async function route(floor: Floor, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const path = (request.url ?? '/').split('?')[0];
  const client = clientOf(request);
  if (request.method === 'POST' && path === '/api/v2/pushes') return send(response, 201, await floor.create(await readBody(request), client));
  if (request.method === 'GET' && path === '/api/v2/version') return send(response, 200, VERSION);
  const match = request.method === 'GET' ? PUSH_PATH.exec(path) : null;
  if (match?.[2]) return send(response, 200, await floor.preview(match[1], client));
  if (match) return send(response, 200, await floor.retrieve(match[1], client), true);
  send(response, 404, { error: 'not-found' });
}

/** The same routes as Express routes, answered the Express way (res.json), as Nest's adapter does. */
function expressFloor(floor: Floor): RequestListener {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(express.json({ limit: BODY_LIMIT }));
  const answer =
    (status: number, work: (request: Request) => unknown, noStore = false) =>
    (request: Request, response: Response): void => {
      Promise.resolve()
        .then(() => work(request))
        .then(
          (body) => {
            response.status(status).set('X-Request-Id', randomUUID());
            if (noStore) response.set('Cache-Control', 'no-store');
            response.json(body);
          },
          (error: unknown) => fail(response, error),
        );
    };
  app.post('/api/v2/pushes', answer(201, (request) => floor.create(request.body, clientOf(request))));
  app.get('/api/v2/version', answer(200, () => VERSION));
  app.get('/api/v2/pushes/:token/preview', answer(200, (request) => floor.preview(String(request.params.token), clientOf(request))));
  app.get('/api/v2/pushes/:token', answer(200, (request) => floor.retrieve(String(request.params.token), clientOf(request)), true));
  return app;
}

async function main(): Promise<void> {
  const url = process.env.FLOOR_DATABASE_URL ?? '';
  const key = Buffer.from(process.env.FLOOR_MASTER_KEY ?? '', 'hex');
  if (key.length !== 32) throw new Error('FLOOR_MASTER_KEY must be 64 hex characters');
  const store = url.startsWith('sqlite:') ? sqliteStore(url.slice('sqlite:'.length)) : url.startsWith('postgres') ? postgresStore(url) : mysqlStore(url);
  const floor = new Floor(store, new FloorCipher(key));
  const framework = process.env.FLOOR_FRAMEWORK;
  const listener: RequestListener =
    framework === 'nest'
      ? await nestFloor(floor, clientOf, VERSION, BODY_LIMIT)
      : framework === 'express'
        ? expressFloor(floor)
        : (request, response) => void route(floor, request, response).catch((error: unknown) => fail(response, error));
  const server = createServer(listener);
  server.listen(Number(process.env.FLOOR_PORT ?? 5200), '127.0.0.1');
  process.once('SIGTERM', () => {
    server.close(() => void store.close().finally(() => process.exit(0)));
    server.closeAllConnections();
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`floor failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
