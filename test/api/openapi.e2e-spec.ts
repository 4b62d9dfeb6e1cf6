import { readFileSync } from 'node:fs';
import { client, request } from '../support/http';
import { OPENAPI_DOCUMENT, openApiValidator, type ObservedResponse } from '../support/openapi-validator';
import { startTestApp, type TestApp } from '../support/test-app';

const committed = JSON.parse(readFileSync(OPENAPI_DOCUMENT, 'utf8')) as Record<string, any>;

describe('the OpenAPI document', () => {
  let app: TestApp;

  beforeAll(async () => {
    // Anonymous use off: the documentation must stay readable without a token all the same.
    app = await startTestApp({ PWP__ALLOW_ANONYMOUS: 'false' });
  });
  afterAll(() => app.close({ drop: true }));

  it('is served at /api-docs.json exactly as committed', async () => {
    const served = await request(app.baseUrl, 'GET', '/api-docs.json', { headers: { authorization: 'Bearer not-a-token' } });
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toMatch(/^application\/json/);
    expect(served.body).toEqual(committed);
  });

  it('is browsable with Swagger UI at /api-docs', async () => {
    const page = await request(app.baseUrl, 'GET', '/api-docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.text).toContain('swagger-ui');
    const init = await request(app.baseUrl, 'GET', '/api-docs/swagger-ui-init.js');
    expect(init.status).toBe(200);
    expect(init.text).toContain('"operationId": "createPush"');
  });

  it('documents API v1 as deprecated operations, and no v2 operation as deprecated', () => {
    const operations = Object.entries(committed.paths as Record<string, Record<string, { operationId: string; deprecated?: boolean; tags: string[] }>>).flatMap(([path, methods]) =>
      Object.values(methods).map((operation) => ({ path, ...operation })),
    );
    for (const operation of operations) {
      const v1 = operation.operationId.startsWith('v1');
      expect([operation.path, operation.deprecated === true, operation.tags]).toEqual([operation.path, v1, [v1 ? 'api-v1' : expect.any(String)]]);
    }
  });

  it('names every operation as the clients know it', () => {
    const operationIds = Object.values(committed.paths as Record<string, Record<string, { operationId: string }>>).flatMap((path) =>
      Object.values(path).map((operation) => operation.operationId),
    );
    expect(operationIds.sort()).toEqual(
      [
        'createPush',
        'deletePush',
        'downloadPushFile',
        'getPushAudit',
        'getVersion',
        'listActivePushes',
        'listExpiredPushes',
        'previewPush',
        'retrievePush',
        'notifyPushEmails',
        ...['createRequest', 'retrieveRequest', 'respondToRequest', 'closeRequest', 'previewRequest', 'getRequestAudit', 'downloadRequestFile'],
        ...['listActiveRequests', 'listOpenRequests', 'listReadyRequests', 'listClosedRequests'],
        ...['createWebhook', 'listWebhooks', 'deleteWebhook', 'rotateWebhookSecret', 'enableWebhook', 'listWebhookDeliveries'],
        // API v1: the routes under /f and /r have the /p one's id with F or R after it.
        'v1GetVersion',
        'v1CreatePush',
        'v1CreateFilePush',
        'v1CreateUrlPush',
        ...['v1RetrievePush', 'v1DeletePush', 'v1PreviewPush', 'v1GetPushAudit', 'v1ListActivePushes', 'v1ListExpiredPushes'].flatMap((id) => [id, `${id}F`, `${id}R`]),
      ].sort(),
    );
  });
});

describe('response validation against the document', () => {
  let app: TestApp;
  let token: string;
  let retrieved: ObservedResponse;

  beforeAll(async () => {
    app = await startTestApp();
    const api = client(app.baseUrl);
    token = (await api.createPush({ payload: 'validated', expire_after_views: 5 })).url_token;
    const result = await api.get(`/api/v2/pushes/${token}`);
    retrieved = {
      method: 'GET',
      path: `/api/v2/pushes/${token}`,
      status: result.status,
      headers: result.headers,
      body: result.body,
      text: result.text,
    };
  });
  afterAll(() => app.close({ drop: true }));

  const validator = () => openApiValidator();
  const withBody = (body: unknown): ObservedResponse => ({ ...retrieved, body, text: JSON.stringify(body) });
  const json = (status: number, body: unknown): Pick<ObservedResponse, 'status' | 'headers' | 'body' | 'text'> => ({
    status,
    headers: new Headers({ 'content-type': 'application/json; charset=utf-8', 'x-request-id': 'r1' }),
    body,
    text: JSON.stringify(body),
  });

  it('accepts a real response, nullable fields included', () => {
    expect(validator().check(retrieved)).toEqual([]);
    expect(
      validator().check(withBody({ ...(retrieved.body as object), payload: null, expired_on: null, deletable_by_viewer: null })),
    ).toEqual([]);
  });

  it('rejects an undocumented field, a missing key and a wrong type', () => {
    const body = retrieved.body as Record<string, unknown>;
    expect(validator().check(withBody({ ...body, passphrase: 'leak' }))).toEqual([
      expect.stringContaining('must NOT have additional properties (passphrase)'),
    ]);
    const { payload: _payload, ...withoutPayload } = body;
    expect(validator().check(withBody(withoutPayload))).toEqual([expect.stringContaining("must have required property 'payload'")]);
    expect(validator().check(withBody({ ...body, views_remaining: '5' }))).toEqual(['body/views_remaining must be integer']);
  });

  it('rejects an undocumented status and a missing required header', () => {
    expect(validator().check({ ...retrieved, status: 500 })).toEqual([
      expect.stringContaining('status 500 is not documented for retrievePush'),
    ]);
    const headers = new Headers(retrieved.headers);
    headers.delete('cache-control');
    expect(validator().check({ ...retrieved, headers })).toEqual(['header Cache-Control is required but missing']);
    expect(() => validator().assert({ ...retrieved, status: 500 })).toThrow(
      /Response does not match openapi\.json: GET \/api\/v2\/pushes\/\S+ → 500 \(path \/api\/v2\/pushes\/\{url_token\}\)/,
    );
  });

  it('tells literal paths from templates', () => {
    const notFound = { method: 'GET', ...json(404, { error: 'not-found' }) };
    expect(validator().check({ ...notFound, path: '/api/v2/pushes/some-token' })).toEqual([]);
    // /active is its own operation, which never answers 404.
    expect(validator().check({ ...notFound, path: '/api/v2/pushes/active?page=2' })).toEqual([
      expect.stringContaining('status 404 is not documented for listActivePushes'),
    ]);
  });

  it('holds unknown routes to the JSON 404 and exempts only the listed paths', () => {
    expect(validator().check({ method: 'GET', path: '/api/v2/nope', ...json(404, { error: 'not-found' }) })).toEqual([]);
    expect(validator().check({ method: 'PUT', path: `/api/v2/pushes/${token}`, ...json(404, { error: 'not-found' }) })).toEqual([]);
    expect(validator().check({ method: 'GET', path: '/api/v2/nope', ...json(200, { ok: true }) })).toEqual([
      'GET /api/v2/nope is not in the document, yet answered 200 (expected the JSON 404)',
      "body must have required property 'error'",
      'body must NOT have additional properties (ok)',
    ]);
    for (const path of ['/healthz', '/readyz', '/metrics', '/api-docs', '/api-docs.json', '/api-docs/swagger-ui.css']) {
      expect(validator().check({ method: 'GET', path, ...json(200, { anything: true }) })).toEqual([]);
    }
    expect(validator().check({ method: 'GET', path: '/healthz/deep', ...json(200, {}) })).not.toEqual([]);
  });
});
