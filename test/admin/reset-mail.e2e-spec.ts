import { UsersService } from '@app/auth';
import { closedSmtpPort } from '../support/mailpit';
import { startTestApp, type TestApp } from '../support/test-app';
import { Visitor } from '../support/visitor';

const PASSWORD = 'a long password';

/**
 * With account emails on, an administrator can mail a person the password reset link (the link mail
 * of "Forgot your password?", through the outbox); logged on the person with who asked.
 */
describe('administration: a mailed password reset', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp({
      PWP__ENABLE_USER_ACCOUNT_EMAILS: 'true',
      PWP__MAIL__SMTP_ADDRESS: '127.0.0.1',
      PWP__MAIL__SMTP_PORT: String(await closedSmtpPort()),
      PWP__MAIL__MAILER_SENDER: 'pwpush@example.com',
      PWP__HOST_DOMAIN: 'pwpush.example.com',
    });
  });
  afterAll(() => app.close({ drop: true }));

  it('offers and mails the reset link, and the overview says account emails are on', async () => {
    const users = app.service(UsersService);
    await users.create('root@example.com', PASSWORD, { admin: true });
    await users.create('forgetful@example.com', PASSWORD);
    const { id } = await users.find('forgetful@example.com');
    const admin = new Visitor(app.baseUrl);
    expect((await admin.submit('/users/sign_in', '/users/sign_in', { email: 'root@example.com', password: PASSWORD })).status).toBe(303);
    expect((await admin.get('/admin')).html).toMatch(/<dt>Account emails<\/dt><dd>On<\/dd>/);
    const page = await admin.get('/admin/users?q=forgetful');
    expect(page.html).toContain(`action="/admin/users/${id}/send_reset"`);
    const sent = await admin.submit('/admin/users', `/admin/users/${id}/send_reset`, {});
    expect([sent.status, sent.location]).toEqual([303, '/admin/users?q=forgetful%40example.com&done=send_reset']);
    expect((await admin.get(sent.location!)).html).toContain('A password reset link was mailed.');
    const mails = await app.query<{ payload: string }>("SELECT payload FROM outbox WHERE type = 'account.mail' ORDER BY id");
    expect(mails.map((row) => JSON.parse(row.payload) as { kind: string; to: string }).map((mail) => [mail.kind, mail.to])).toEqual([['reset', 'forgetful@example.com']]);
    const [event] = await app.query<{ kind: string; ip: string; detail: string }>("SELECT kind, ip, detail FROM security_events WHERE user_id = ? AND kind = 'password_reset_requested'", [id]);
    expect({ ...event, detail: JSON.parse(event.detail) }).toEqual({ kind: 'password_reset_requested', ip: '127.0.0.1', detail: { by: 'admin', admin: 'root@example.com' } });
  });
});
