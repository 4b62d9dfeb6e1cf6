import { auditKinds } from '../support/helpers';
import { client, type ApiClient } from '../support/http';
import { startTestApp, type TestApp } from '../support/test-app';

/**
 * HEAD and OPTIONS never count a view, decrypt or audit (spec "Methods that never count a view"):
 * link checkers, proxies and monitors send them to every link they see. Sent with plain fetch:
 * they are not operations of the OpenAPI document.
 */

const PUSHES = '/api/v2/pushes';

describe('HEAD and OPTIONS on every retrieval route', () => {
  let app: TestApp;
  let api: ApiClient;
  let ownerToken: string;
  let owner: Record<string, string>;

  beforeAll(async () => {
    app = await startTestApp();
    api = client(app.baseUrl);
    ownerToken = await app.createUser('head@example.com');
    owner = { authorization: `Bearer ${ownerToken}` };
  });
  afterAll(() => app.close({ drop: true }));

  const viewCount = async (token: string) => Number((await app.query('SELECT view_count FROM pushes WHERE url_token = ?', [token]))[0].view_count);
  const send = (method: string, path: string) => fetch(`${app.baseUrl}${path}`, { method, headers: { origin: 'https://checker.example', 'access-control-request-method': 'GET' } });

  it('refuses HEAD with 405 and Allow on the API retrievals (v2, .json, v1) and on the page that reveals, and OPTIONS changes nothing', async () => {
    // No retrieval step: its page /p/:token reveals the secret on a GET.
    const push = await api.createPush({ payload: 'not for link checkers', expire_after_views: 3, retrieval_step: false }, owner);
    const token = push.url_token;
    const routes: [path: string, allow: string][] = [
      [`${PUSHES}/${token}`, 'GET, DELETE'],
      [`${PUSHES}/${token}.json`, 'GET, DELETE'],
      [`/p/${token}.json`, 'GET, DELETE'],
      [`/f/${token}.json`, 'GET, DELETE'],
      [`/r/${token}.json`, 'GET, DELETE'],
      [`/p/${token}`, 'GET'],
    ];
    for (const [path, allow] of routes) {
      for (let i = 0; i < 2; i++) {
        const head = await send('HEAD', path);
        expect([path, head.status, head.headers.get('allow'), await head.text()]).toEqual([path, 405, allow, '']);
      }
      const options = await send('OPTIONS', path);
      expect([path, options.status, (await options.text()).includes('not for link checkers')]).toEqual([path, 404, false]);
    }
    // The step page only shows a button: HEAD is harmless there, and still changes nothing.
    expect((await send('HEAD', `/p/${token}/r`)).status).toBe(200);
    await send('OPTIONS', `/p/${token}/r`);

    expect(await viewCount(token)).toBe(0);
    expect(await auditKinds(app.baseUrl, token, ownerToken)).toEqual(['creation']);
    // And the secret is all there for its recipient.
    expect((await api.get(`${PUSHES}/${token}`)).body).toMatchObject({ payload: 'not for link checkers', views_remaining: 2 });
  });

  it('answers HEAD on a download link with its headers, without a byte or an audited download; OPTIONS likewise audits nothing', async () => {
    const bytes = Buffer.from('file behind a link checker\n'.repeat(100));
    const form = new FormData();
    form.append('push[files][]', new Blob([bytes], { type: 'text/plain' }), 'notes.txt');
    form.append('push[expire_after_views]', '3');
    const created = (await (await fetch(`${app.baseUrl}${PUSHES}`, { method: 'POST', body: form, headers: owner })).json()) as { url_token: string };
    const retrieved = await api.get(`${PUSHES}/${created.url_token}`);
    const [file] = retrieved.body.files as { url: string }[];
    const link = new URL(file.url).pathname;

    const head = await send('HEAD', link);
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(bytes.length));
    expect(head.headers.get('content-type')).toBe('text/plain');
    expect(head.headers.get('content-disposition')).toContain('attachment');
    expect(Buffer.from(await head.arrayBuffer()).length).toBe(0);
    const ranged = await fetch(`${app.baseUrl}${link}`, { method: 'HEAD', headers: { range: 'bytes=0-9' } });
    expect([ranged.status, ranged.headers.get('content-range')]).toEqual([206, `bytes 0-9/${bytes.length}`]);
    await send('OPTIONS', link);

    expect(await auditKinds(app.baseUrl, created.url_token, ownerToken)).toEqual(['creation', 'view']);
    expect(await viewCount(created.url_token)).toBe(1);
    const download = await fetch(file.url);
    expect(Buffer.from(await download.arrayBuffer())).toEqual(bytes);
    expect(await auditKinds(app.baseUrl, created.url_token, ownerToken)).toEqual(['creation', 'view', 'file_download']);
  });
});
