import { SecurityLog, UsersService } from '@app/auth';
import { client } from '../support/http';
import { startTestApp, type TestApp } from '../support/test-app';
import { Visitor } from '../support/visitor';

const PASSWORD = 'a long password';

/** Every path and action of the administration, for the gate's checks. */
const GETS = ['/admin', '/admin/users', '/admin/users?page=2', '/admin/pushes', '/admin/audit', '/admin/notifications', '/admin/custom_css', '/admin/audit.csv', '/admin/audit.jsonl'];
const POSTS = ['/admin/users/1/promote', '/admin/users/1/revoke', '/admin/users/1/disable', '/admin/users/1/enable', '/admin/users/1/reset_two_factor', '/admin/users/1/send_reset', '/admin/users/1/delete', '/admin/pushes/1/expire', '/admin/notifications/1/retry', '/admin/custom_css'];

/**
 * The administration center over HTTP on each engine: its gate (404 to anyone but an administrator,
 * CSRF), the counts, the people and the actions on them with their effects and their log entries,
 * the pushes' metadata (never a secret) and "Expire".
 */
describe('administration', () => {
  let app: TestApp;
  let users: UsersService;
  let admin: Visitor;
  let adminEmail: string;
  let n = 0;

  beforeAll(async () => {
    app = await startTestApp();
    users = app.service(UsersService);
    adminEmail = 'root@example.com';
    await users.create(adminEmail, PASSWORD, { admin: true });
    admin = await signIn(adminEmail);
  });
  afterAll(() => app.close({ drop: true }));

  async function signIn(email: string): Promise<Visitor> {
    const visitor = new Visitor(app.baseUrl);
    const signedIn = await visitor.submit('/users/sign_in', '/users/sign_in', { email, password: PASSWORD });
    expect(signedIn.status).toBe(303);
    return visitor;
  }
  async function person(prefix = 'person'): Promise<{ email: string; token: string; id: number }> {
    const email = `${prefix}-${++n}@example.com`;
    const { api_token } = await users.create(email, PASSWORD);
    return { email, token: api_token, id: (await users.find(email)).id };
  }
  /** POSTs an action from the people page, with that page's CSRF token. */
  const act = (visitor: Visitor, id: number, action: string) => visitor.submit('/admin/users', `/admin/users/${id}/${action}`, {});

  it('answers 404 on every path and action to a visitor without a session and to a signed-in person who is not an administrator', async () => {
    const { email } = await person();
    const visitors = [new Visitor(app.baseUrl), await signIn(email)];
    for (const visitor of visitors) {
      for (const path of GETS) {
        const answer = await visitor.get(path);
        expect([path, answer.status, answer.location]).toEqual([path, 404, null]);
        expect(answer.html).not.toContain('Administration');
      }
      for (const path of POSTS) {
        const answer = await visitor.submit('/', path, {});
        expect([path, answer.status, answer.location]).toEqual([path, 404, null]);
      }
    }
    // An API token is no way in either.
    const { token } = await person();
    const api = await fetch(`${app.baseUrl}/admin`, { headers: { authorization: `Bearer ${token}` } });
    expect(api.status).toBe(404);
  });

  it('refuses a POST without the form token (CSRF), and does nothing', async () => {
    const target = await person();
    const refused = await admin.submit('/', `/admin/users/${target.id}/promote`, { _csrf: 'forged' });
    expect(refused.status).toBe(403);
    const bare = await fetch(`${app.baseUrl}/admin/users/${target.id}/promote`, {
      method: 'POST',
      headers: { cookie: [...admin.cookies].map(([k, v]) => `${k}=${v}`).join('; '), 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
    });
    expect(bare.status).toBe(403);
    expect((await users.list()).find((user) => user.email === target.email)?.admin).toBe(false);
  });

  it('shows the counts, the version and the security settings at a glance', async () => {
    const [{ people }] = await app.query<{ people: number }>('SELECT COUNT(*) AS people FROM users');
    const home = await admin.get('/admin');
    expect(home.status).toBe(200);
    const facts = [...home.html.matchAll(/<dt>(?:<a href="[^"]*">)?([^<]+)(?:<\/a>)?<\/dt><dd>([^<]*)<\/dd>/g)].map(([, k, v]) => [k, v]);
    expect(Object.fromEntries(facts)).toEqual({
      People: String(people),
      Pushes: '0',
      'Active pushes': '0',
      'Audit entries': '0',
      'Notifications waiting': '0',
      'Notifications given up': '0',
      Version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      'Pushes without an account': 'On',
      'Sign-ups': 'On',
      'Two-factor authentication required': 'No',
      'Single sign-on': 'Off',
      'Account emails': 'Off',
    });
  });
});
