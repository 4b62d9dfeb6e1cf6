import { client } from './support/http';
import { startTestApp, TestApp } from './support/test-app';

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
          file_attachments: { enabled: false, requires_authentication: true },
          // On by default, as in the reference 2.11.4.
          url_pushes: { enabled: true },
          qr_code_pushes: { enabled: true },
        },
        requests: { enabled: false },
      },
    });
  });

  it('reflects the live settings', async () => {
    app = await startTestApp({ PWP__ENABLE_URL_PUSHES: 'false', PWP__ENABLE_QR_PUSHES: 'no', PWP__ALLOW_ANONYMOUS: 'false', PWP__ENABLE_FILE_PUSHES: 'true' });
    const { body } = await client(app.baseUrl).get('/api/v2/version');
    expect(body.features.anonymous_access).toBe(false);
    expect(body.features.pushes.url_pushes.enabled).toBe(false);
    expect(body.features.pushes.qr_code_pushes.enabled).toBe(false);
    // File attachments are not built yet: the flag stays false whatever the setting says.
    expect(body.features.pushes.file_attachments.enabled).toBe(false);
  });
});
