import { Logger } from '@nestjs/common';
import { FirstRunService, LOCKOUT, SecurityLog, SessionsService, UnseenWork, UsersService } from '@app/auth';
import { MINUTE_MS } from '@app/common';
import { FieldCipher } from '@app/crypto';
import { ACCOUNT_MAIL_TOKEN_CONTEXT } from '@app/events';
import { sha256 } from '../support/helpers';
import { closedSmtpPort } from '../support/mailpit';
import { startTestApp, type TestApp } from '../support/test-app';
import { Visitor } from '../support/visitor';

/** A page as another visitor would get it: this response's CSP nonce and the echoed address taken out. */
const comparable = (html: string, ...echoed: string[]): string => echoed.reduce((page, value) => page.split(value).join('<address>'), html.replace(/nonce="[^"]+"/g, 'nonce=""'));

/** Account emails on, with a mail server that is never reached: the outbox keeps what would be sent. */
async function mailEnv(): Promise<Record<string, string>> {
  return {
    PWP__ENABLE_USER_ACCOUNT_EMAILS: 'true',
    PWP__MAIL__SMTP_ADDRESS: '127.0.0.1',
    PWP__MAIL__SMTP_PORT: String(await closedSmtpPort()),
    PWP__MAIL__MAILER_SENDER: 'pwpush@example.com',
    PWP__HOST_DOMAIN: 'pwpush.example.com',
  };
}

const PASSWORD = 'a long password';

describe('accounts over HTTP', () => {
  describe('with account emails', () => {
    let app: TestApp;
    // What a form's answer does not wait for (UnseenWork) is done before anything is looked at.
    const outbox = async () => (await app.service(UnseenWork).settled(), await app.query<{ payload: string }>("SELECT payload FROM outbox WHERE type = 'account.mail' ORDER BY id")).map((row) => JSON.parse(row.payload) as { kind: string; to: string; sealed_token?: string });

    beforeAll(async () => {
      app = await startTestApp(await mailEnv());
      await app.service(UsersService).create('known@example.com', PASSWORD);
    });
    afterAll(() => app.close({ drop: true }));

    it('answers sign-in, reset, unlock, resend and sign-up alike whether the address has an account or not', async () => {
      const visitor = new Visitor(app.baseUrl);
      const pairs: [string, string, Record<string, string>, string][] = [
        ['/users/sign_in', '/users/sign_in', { password: 'wrong password!' }, 'email'],
        ['/users/password/new', '/users/password/new', {}, 'user[email]'],
        ['/users/unlock/new', '/users/unlock/new', {}, 'user[email]'],
        ['/users/confirmation/new', '/users/confirmation/new', {}, 'user[email]'],
        ['/users/sign_up', '/users', { 'user[password]': PASSWORD, 'user[password_confirmation]': PASSWORD }, 'user[email]'],
      ];
      for (const [page, action, fields, emailField] of pairs) {
        const known = await visitor.submit(page, action, { ...fields, [emailField]: 'known@example.com' });
        const unknown = await visitor.submit(page, action, { ...fields, [emailField]: 'nobody@example.com' });
        expect([action, known.status, comparable(known.html, 'known@example.com')]).toEqual([action, unknown.status, comparable(unknown.html, 'nobody@example.com')]);
        expect([action, known.status]).toEqual([action, action === '/users/sign_in' ? 401 : 200]);
      }
      // Only the account that exists was mailed a reset link (it is not locked nor waiting for a confirmation); the new address, its confirmation.
      expect((await outbox()).map((mail) => [mail.kind, mail.to])).toEqual([
        ['reset', 'known@example.com'],
        ['confirmation', 'nobody@example.com'],
      ]);
    });

    it('locks after 10 wrong passwords (the right one then gets the same refusal), mails the unlock link, and unlocks after an hour', async () => {
      await app.service(UsersService).create('locked@example.com', PASSWORD);
      const visitor = new Visitor(app.baseUrl);
      const signIn = (password: string) => visitor.submit('/users/sign_in', '/users/sign_in', { email: 'locked@example.com', password });
      const wrong = await signIn('wrong password!');
      for (let n = 1; n < LOCKOUT.attempts; n++) await signIn('wrong password!');
      await app.service(UnseenWork).settled();
      // Past the per-minute sign-in limit, which would answer 429 first.
      app.clock.advance(MINUTE_MS + 1000);
      const right = await signIn(PASSWORD);
      expect([right.status, comparable(right.html)]).toEqual([401, comparable(wrong.html)]);
      await app.service(UnseenWork).settled();
      const [locked] = await app.query<{ locked_at: unknown; failed_attempts: unknown }>("SELECT locked_at, failed_attempts FROM users WHERE email = 'locked@example.com'");
      expect([locked.locked_at !== null, Number(locked.failed_attempts)]).toEqual([true, LOCKOUT.attempts]);
      expect((await outbox()).filter((mail) => mail.to === 'locked@example.com').map((mail) => mail.kind)).toEqual(['unlock']);

      app.clock.advance(LOCKOUT.unlockAfterMs);
      const back = await signIn(PASSWORD);
      expect([back.status, back.location]).toEqual([303, '/users/token']);
      const user = await app.service(UsersService).find('locked@example.com');
      expect((await app.service(SecurityLog).list(user.id, { limit: 4 })).events.map((event) => [event.kind, event.detail])).toEqual([
        ['sign_in', { method: 'password' }],
        ['unlocked', { by: 'time' }],
        ['sign_in_failed', { locked: true }],
        ['locked', { failures: LOCKOUT.attempts }],
      ]);
    });

    it('keeps the token sealed in the outbox and hashed with the account, and lets a link work once when two press at the same moment', async () => {
      const visitor = new Visitor(app.baseUrl);
      const made = await visitor.submit('/users/sign_up', '/users', { 'user[email]': 'twice@example.com', 'user[password]': PASSWORD, 'user[password_confirmation]': PASSWORD });
      expect(made.status).toBe(200);
      const [mail] = (await outbox()).filter((entry) => entry.to === 'twice@example.com');
      const token = app.service(FieldCipher).decrypt(Buffer.from(mail.sealed_token!, 'base64url'), ACCOUNT_MAIL_TOKEN_CONTEXT);
      expect(token).toMatch(/^[\w-]{43}$/);
      expect(JSON.stringify(await app.query('SELECT * FROM outbox'))).not.toContain(token);
      const [user] = await app.query<{ id: unknown }>("SELECT id FROM users WHERE email = 'twice@example.com'");
      const rows = await app.query<{ token_hash: string }>('SELECT token_hash FROM account_tokens WHERE user_id = ?', [user.id]);
      expect(rows.map((row) => row.token_hash)).toEqual([sha256(token)]);

      // The GET shows a button and confirms nothing.
      const page = await visitor.get(`/users/confirmation?confirmation_token=${token}`);
      expect([page.status, page.html]).toEqual([200, expect.stringContaining('Confirm my address')]);
      expect((await app.query<{ confirmed_at: unknown }>('SELECT confirmed_at FROM users WHERE id = ?', [user.id]))[0].confirmed_at).toBeNull();
      const press = () => new Visitor(app.baseUrl).submit('/users/confirmation/new', '/users/confirmation', { confirmation_token: token });
      const answers = await Promise.all([press(), press()]);
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 404]);
      expect((await app.query<{ confirmed_at: unknown }>('SELECT confirmed_at FROM users WHERE id = ?', [user.id]))[0].confirmed_at).not.toBeNull();
    });
  });

  describe('without account emails', () => {
    let app: TestApp;

    beforeAll(async () => {
      app = await startTestApp({ PWP__SIGNUP_EMAIL_REGEXP: String.raw`\A[^@\s]+@example\.com\z` });
      await app.service(UsersService).create('first@example.com', PASSWORD);
    });
    afterAll(() => app.close({ drop: true }));

    it('signs up and in at once; a taken address gets a plain refusal; the pattern and the password length are checked', async () => {
      const visitor = new Visitor(app.baseUrl);
      const signUp = (email: string, password = PASSWORD, confirmation = password) =>
        visitor.submit('/users/sign_up', '/users', { 'user[email]': email, 'user[password]': password, 'user[password_confirmation]': confirmation });
      const taken = await signUp('FIRST@example.com ');
      expect([taken.status, taken.html]).toEqual([422, expect.stringContaining('This address cannot be used for an account here.')]);
      const elsewhere = await signUp('someone@gmail.com');
      expect([elsewhere.status, elsewhere.html]).toEqual([422, expect.stringContaining('This is not an email address that can be used here.')]);
      expect((await signUp('new@example.com', 'too short')).html).toContain('The password needs at least 10 characters.');
      expect((await signUp('new@example.com', 'x'.repeat(129))).html).toContain('The password can have at most 128 characters.');
      expect((await signUp('new@example.com', PASSWORD, 'another long one')).html).toContain('The two passwords differ.');
      const made = await signUp('New@Example.com');
      expect([made.status, made.location]).toEqual([303, '/users/token']);
      expect((await visitor.get('/users/token')).html).toContain('Signed in as new@example.com');
      expect(await app.query("SELECT email, admin FROM users WHERE email = 'new@example.com'")).toEqual([{ email: 'new@example.com', admin: expect.anything() }]);
      // No mail-based recovery without account emails.
      expect((await visitor.get('/users/password/new')).status).toBe(404);
      expect((await visitor.get('/users/confirmation?confirmation_token=x')).status).toBe(404);
    });

    it('slides an idle session at most once a minute, ends it after PWP__LOGIN_SESSION_TIMEOUT idle, and keeps a remembered one a week', async () => {
      const sessions = app.service(SessionsService);
      const user = await app.service(UsersService).find('first@example.com');
      const idle = await sessions.start(user);
      const remembered = await sessions.start(user, { remember: true });
      const expiry = async () => Number((await app.query<{ expires_at: unknown }>('SELECT expires_at FROM sessions WHERE remember = FALSE AND user_id = ?', [user.id]))[0].expires_at);
      const first = await expiry();
      app.clock.advance(30_000);
      expect(await sessions.userOf(idle)).not.toBeNull();
      expect(await expiry()).toBe(first);
      app.clock.advance(31_000);
      expect(await sessions.userOf(idle)).not.toBeNull();
      expect(await expiry()).toBeGreaterThan(first);
      app.clock.advance(app.settings.accounts.sessionTimeoutMs + 1000);
      expect([await sessions.userOf(idle), (await sessions.userOf(remembered))?.email]).toEqual([null, 'first@example.com']);
      app.clock.advance(7 * 24 * 60 * MINUTE_MS);
      expect(await sessions.userOf(remembered)).toBeNull();
    });
  });

  describe('first run', () => {
    let app: TestApp;
    const codes: string[] = [];

    beforeAll(async () => {
      jest.spyOn(Logger.prototype, 'warn').mockImplementation(function (this: Logger, message: unknown) {
        const code = /boot code to create the administrator account: ([0-9a-f]{32})/.exec(String(message))?.[1];
        if (code) codes.push(code);
      });
      app = await startTestApp();
    });
    afterAll(async () => {
      jest.restoreAllMocks();
      await app.close({ drop: true });
    });

    it('leads the owner pages to /first_run, never a recipient page or the API, and makes one administrator with one code, once', async () => {
      const visitor = new Visitor(app.baseUrl);
      const push = (await (await fetch(`${app.baseUrl}/api/v2/pushes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"push":{"payload":"x"}}' })).json()) as { url_token: string };
      for (const path of ['/', '/p/new', '/users/sign_in', '/users/sign_up', '/users/token', '/users/edit', '/dashboard/active']) {
        expect([path, (await visitor.get(path)).location]).toEqual([path, '/first_run']);
      }
      expect((await visitor.get(`/p/${push.url_token}/r`)).status).toBe(200);
      expect((await fetch(`${app.baseUrl}/api/v2/version`)).status).toBe(200);

      // The start-up logged one code; a second replica (here: a second announcement) logs another. Both work, once, together.
      expect(codes).toHaveLength(1);
      await app.service(FirstRunService).announce();
      expect(codes).toHaveLength(2);
      const wrong = await visitor.submit('/first_run', '/first_run', { boot_code: '0'.repeat(32), 'user[email]': 'admin@example.com', 'user[password]': PASSWORD, 'user[password_confirmation]': PASSWORD });
      expect([wrong.status, wrong.html]).toEqual([422, expect.stringContaining('That boot code does not work.')]);
      const attempt = (code: string, email: string) =>
        new Visitor(app.baseUrl).submit('/first_run', '/first_run', { boot_code: code, 'user[email]': email, 'user[password]': PASSWORD, 'user[password_confirmation]': PASSWORD });
      const both = await Promise.all([attempt(codes[0], 'one@example.com'), attempt(codes[1], 'two@example.com')]);
      expect(both.map((answer) => answer.status).sort()).toEqual([303, 422]);
      expect(await app.query('SELECT email, admin FROM users')).toEqual([{ email: expect.stringMatching(/^(one|two)@example\.com$/), admin: expect.anything() }]);
      const [admin] = await app.query<{ admin: unknown }>('SELECT admin FROM users');
      expect(Boolean(Number(admin.admin))).toBe(true);
      expect(await app.query('SELECT id FROM first_run_codes')).toEqual([]);
      // Over: the owner pages are themselves again, and the code works no more.
      expect((await visitor.get('/')).status).toBe(200);
      expect((await attempt(codes[0], 'three@example.com')).location).toBe('/users/sign_in');
    });
  });

  it('has no password sign-up when single sign-on is the only way in (PWP__OIDC__PASSWORD_SIGN_IN=false)', async () => {
    const app = await startTestApp({ PWP__OIDC__ISSUER: 'http://127.0.0.1:9/', PWP__OIDC__CLIENT_ID: 'pwpush', PWP__OIDC__CLIENT_SECRET: 'secret', PWP__OIDC__PASSWORD_SIGN_IN: 'false' });
    try {
      const visitor = new Visitor(app.baseUrl);
      expect((await visitor.get('/users/sign_up')).status).toBe(404);
      expect((await visitor.submit('/users/sign_in', '/users', { 'user[email]': 'x@example.com', 'user[password]': PASSWORD, 'user[password_confirmation]': PASSWORD })).status).toBe(404);
      expect((await visitor.get('/users/sign_in')).html).not.toContain('/users/sign_up');
      expect(await app.query('SELECT id FROM users')).toEqual([]);
    } finally {
      await app.close({ drop: true });
    }
  });

  describe('with sign-up and sign-in turned off', () => {
    let app: TestApp;

    beforeAll(async () => {
      app = await startTestApp({ PWP__DISABLE_SIGNUPS: 'true', PWP__DISABLE_LOGINS: 'true' });
    });
    afterAll(() => app.close({ drop: true }));

    it('answers 404 to the sign-in and sign-up pages, sends pages that need a person to /, and keeps API tokens working', async () => {
      const token = await app.createUser('api@example.com');
      const visitor = new Visitor(app.baseUrl);
      for (const path of ['/users/sign_in', '/users/sign_up']) expect([path, (await visitor.get(path)).status]).toEqual([path, 404]);
      const post = await fetch(`${app.baseUrl}/users/sign_in`, { method: 'POST', body: new URLSearchParams({ email: 'api@example.com', password: PASSWORD }) });
      expect(post.status).toBe(404);
      for (const path of ['/users/token', '/users/edit', '/dashboard/active']) expect([path, (await visitor.get(path)).location]).toEqual([path, '/']);
      expect((await fetch(`${app.baseUrl}/api/v2/pushes/active`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
      // No first run either: nobody could sign in with its account.
      expect((await visitor.get('/first_run')).location).toBe('/users/sign_in');
    });
  });
});
