import { client } from '../support/http';
import { startTestApp, TestApp } from '../support/test-app';

describe('GET /api/v2/version', () => {
  let app: TestApp;

  afterEach(() => app.close({ drop: true }));

  it('describes the instance with the contract keys and default features', async () => {
    app = await startTestApp({ PWP__ENABLE_URL_PUSHES: undefined, PWP__ENABLE_QR_PUSHES: undefined, PWP__ENABLE_FILE_PUSHES: undefined });
    const { status, body } = await client(app.baseUrl).get('/api/v2/version');
    expect(status).toBe(200);
    expect(body).toEqual({
      application_version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      api_version: '2.1',
      edition: 'oss',
      features: {
        anonymous_access: true,
        api_token_authentication: true,
        accounts: { enabled: false },
        pushes: {
          enabled: true,
          email_auto_dispatch: false,
          // On by default, as in the reference 2.11.4.
          file_attachments: { enabled: true, requires_authentication: true },
          url_pushes: { enabled: true },
          qr_code_pushes: { enabled: true },
        },
        requests: { enabled: true },
      },
    });
  });

  it('reflects the live settings', async () => {
    app = await startTestApp({ PWP__ENABLE_URL_PUSHES: 'false', PWP__ENABLE_QR_PUSHES: 'no', PWP__ALLOW_ANONYMOUS: 'false', PWP__ENABLE_FILE_PUSHES: 'off', PWP__ENABLE_REQUESTS: 'false' });
    const { body } = await client(app.baseUrl).get('/api/v2/version');
    expect(body.features.anonymous_access).toBe(false);
    expect(body.features.pushes.url_pushes.enabled).toBe(false);
    expect(body.features.pushes.qr_code_pushes.enabled).toBe(false);
    expect(body.features.pushes.file_attachments).toEqual({ enabled: false, requires_authentication: true });
    expect(body.features.requests).toEqual({ enabled: false });
  });

  it('refuses file pushes, in either body, when they are disabled, and stores nothing', async () => {
    app = await startTestApp({ PWP__ENABLE_FILE_PUSHES: 'false' });
    const owner = { authorization: `Bearer ${await app.createUser('files-off@example.com')}` };
    const disabled = { error: 'File pushes are disabled.', errors: { kind: ['File pushes are disabled.'] } };
    const json = await client(app.baseUrl).post('/api/v2/pushes', { push: { files: [{ filename: 'a.txt', data: 'YQ==' }] } }, owner);
    expect([json.status, json.body]).toEqual([422, disabled]);
    const form = new FormData();
    form.append('push[files][]', new Blob(['file body']), 'a.txt');
    const multipart = await fetch(`${app.baseUrl}/api/v2/pushes`, { method: 'POST', body: form, headers: owner });
    expect([multipart.status, await multipart.json()]).toEqual([422, disabled]);
    // Authentication still comes first.
    const anonymous = await fetch(`${app.baseUrl}/api/v2/pushes`, { method: 'POST', body: form });
    expect(anonymous.status).toBe(401);
    expect(Number((await app.query('SELECT COUNT(*) AS n FROM file_attachments'))[0].n)).toBe(0);
  });
});
