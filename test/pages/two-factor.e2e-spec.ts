import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SecurityLog, type SecurityEventKind, UnseenWork, UsersService } from '@app/auth';
import { SIGN_IN_LIMITS } from '@app/rate-limit';
import { client } from '../support/http';
import { closedSmtpPort } from '../support/mailpit';
import { CLI_MAIN, runNode } from '../support/server-process';
import { sha256 } from '../support/helpers';
import { startTestApp, TEST_MASTER_KEY, type TestApp } from '../support/test-app';
import { listedCodes, printedSecret, totpCode, turnOnTwoFactor } from '../support/two-factor';
import { Visitor } from '../support/visitor';

const PASSWORD = 'a long password';
const REQUIRED = /^Two-factor authentication is required\. Sign in on this service's pages and turn it on/;

/**
 * Two-factor authentication over HTTP, where the browser spec beside it cannot look: what is
 * stored, the security log, codes sent at once, the sign-in limits, PWP__REQUIRE_MFA on the API,
 * and the CLI's reset. Codes come from the secret the setup page prints, at the server's clock.
 */
describe('two-factor authentication', () => {
  let app: TestApp;
  let users: UsersService;
  let n = 0;

  beforeAll(async () => {
    app = await startTestApp();
    users = app.service(UsersService);
  });
  afterAll(() => app.close({ drop: true }));
  // A new minute for every test: the sign-in limits (in process here) start afresh, and so do TOTP steps.
  beforeEach(() => app.clock.advance(61_000));

  const now = () => app.clock.now();
  async function person(): Promise<{ email: string; visitor: Visitor }> {
    const email = `two-factor-${++n}@example.com`;
    await users.create(email, PASSWORD);
    const visitor = new Visitor(app.baseUrl);
    const signedIn = await visitor.submit('/users/sign_in', '/users/sign_in', { email, password: PASSWORD });
    expect(signedIn.status).toBe(303);
    return { email, visitor };
  }
  /** A new browser past the password: the code form, and no session yet. */
  async function passwordStep(email: string): Promise<Visitor> {
    const visitor = new Visitor(app.baseUrl);
    const step = await visitor.submit('/users/sign_in', '/users/sign_in', { email, password: PASSWORD });
    expect([step.status, step.html]).toEqual([200, expect.stringContaining('name="otp_attempt"')]);
    expect([...visitor.cookies.keys()].sort()).toEqual(['pwpush_2fa', 'pwpush_csrf']);
    expect(visitor.lastSetCookies.find((line) => line.startsWith('pwpush_2fa='))).toMatch(
      /; Max-Age=300; Path=\/; HttpOnly; SameSite=Lax$/,
    );
    return visitor;
  }
  const code = (visitor: Visitor, attempt: string) => visitor.submit('/users/sign_in', '/users/sign_in', { otp_attempt: attempt });
  /** The person's security log, oldest first, sign-ins aside (accounts' own: each session's start). */
  const kinds = async (email: string): Promise<SecurityEventKind[]> =>
    (await app.service(SecurityLog).list((await users.find(email)).id)).events
      .map((event) => event.kind)
      .filter((kind) => kind !== 'sign_in')
      .reverse();

  it('sets up with recovery codes shown once and a code from the printed key; keeps the key sealed and the codes as keyed hashes', async () => {
    const { email, visitor } = await person();
    expect((await visitor.get('/user/two_factor')).html).toContain('Two-factor authentication is off.');
    const first = listedCodes((await visitor.get('/user/two_factor/backup_codes')).html);
    const shown = await visitor.get('/user/two_factor/backup_codes');
    const codes = listedCodes(shown.html);
    expect([first.length, codes.length, codes.filter((c) => first.includes(c))]).toEqual([16, 16, []]);

    const verify = await visitor.get('/user/two_factor/verify');
    expect(verify.html).toMatch(/<figure class="qr"><svg role="img" aria-label="QR code for your authenticator app"/);
    const secret = printedSecret(verify.html);
    expect(secret).toMatch(/^([A-Z2-7]{4} ){7}[A-Z2-7]{4}$/);
    const wrong = await visitor.submit('/user/two_factor/verify', '/user/two_factor', { code: totpCode(secret, now() - 600_000) });
    expect([wrong.status, wrong.html]).toEqual([422, expect.stringContaining('That code is not right.')]);
    const on = await visitor.submit('/user/two_factor/verify', '/user/two_factor', { code: totpCode(secret, now()) });
    expect([on.status, on.html]).toEqual([200, expect.stringContaining('Two-factor authentication is on. Keep your recovery codes safe.')]);
    expect(on.html).toContain('Unused recovery codes: 16.');
    // On, neither the codes nor the key are shown again.
    expect((await visitor.get('/user/two_factor/backup_codes')).location).toBe('/user/two_factor');
    expect((await visitor.get('/user/two_factor/verify')).location).toBe('/user/two_factor');

    const { id } = await users.find(email);
    const [row] = await app.query<{ otp_secret: Buffer | string }>('SELECT otp_secret FROM users WHERE id = ?', [id]);
    const sealed = Buffer.isBuffer(row.otp_secret) ? row.otp_secret : Buffer.from(row.otp_secret);
    const plain = secret.replace(/ /g, '');
    for (const form of [sealed.toString('latin1'), sealed.toString('hex'), sealed.toString('base64')]) expect(form).not.toContain(plain);
    const stored = (await app.query<{ code_hash: string }>('SELECT code_hash FROM recovery_codes WHERE user_id = ?', [id])).map(
      (r) => r.code_hash,
    );
    expect(stored).toHaveLength(16);
    for (const c of codes) expect(stored.some((hash) => hash.includes(c) || hash === sha256(c))).toBe(false);
    expect(await kinds(email)).toEqual(['account_created', 'two_factor_failed', 'two_factor_enabled']);
  });

  it('asks for a code after the right password, starts the session with it, and never takes that code again', async () => {
    const { email, visitor } = await person();
    const { secret } = await turnOnTwoFactor(visitor, now);
    // The next step: the setup's own code has been taken.
    app.clock.advance(30_000);
    const browser = await passwordStep(email);
    expect((await browser.get('/users/token')).location).toBe('/users/sign_in');
    const right = totpCode(secret, now());
    const signedIn = await code(browser, right);
    expect([signedIn.status, signedIn.location]).toEqual([303, '/users/token']);
    expect(browser.cookies.has('pwpush_2fa')).toBe(false);
    expect((await browser.get('/users/token')).html).toContain(`Signed in as ${email}`);

    const replay = await code(await passwordStep(email), right);
    expect([replay.status, replay.html]).toEqual([401, expect.stringContaining('That code is not right. Tries left: 4.')]);
    app.clock.advance(30_000);
    expect((await code(await passwordStep(email), totpCode(secret, now()))).status).toBe(303);
    expect(await kinds(email)).toEqual(['account_created', 'two_factor_enabled', 'two_factor_failed']);
    expect((await app.service(SecurityLog).list((await users.find(email)).id)).events[0]).toMatchObject({
      kind: 'sign_in',
      detail: { method: 'two_factor' },
    });
  });

  it('keeps "remember me", asked with the password, for the session the code starts', async () => {
    const { email, visitor } = await person();
    const { codes } = await turnOnTwoFactor(visitor, now);
    const remembered = new Visitor(app.baseUrl);
    await remembered.submit('/users/sign_in', '/users/sign_in', { email, password: PASSWORD, remember_me: '1' });
    expect((await code(remembered, codes[0])).status).toBe(303);
    expect(remembered.lastSetCookies.find((line) => line.startsWith('pwpush_session='))).toMatch(/; Max-Age=604800;/);
    const forgotten = await passwordStep(email);
    expect((await code(forgotten, codes[1])).status).toBe(303);
    expect(forgotten.lastSetCookies.find((line) => line.startsWith('pwpush_session='))).not.toMatch(/Max-Age/);
  });

  it('takes each recovery code once, typed in any case with spaces', async () => {
    const { email, visitor } = await person();
    const { codes } = await turnOnTwoFactor(visitor, now);
    const typed = `${codes[3].slice(0, 5).toUpperCase()} ${codes[3].slice(5)}`;
    expect((await code(await passwordStep(email), typed)).status).toBe(303);
    expect((await code(await passwordStep(email), codes[3])).status).toBe(401);
    expect((await visitor.get('/user/two_factor')).html).toContain('Unused recovery codes: 15.');
    expect(await kinds(email)).toEqual(['account_created', 'two_factor_enabled', 'recovery_code_used', 'two_factor_failed']);
  });

  it('ends a sign-in after 5 wrong codes, its cookie replayed included, and counts them toward the sign-in limits', async () => {
    const { email, visitor } = await person();
    const { secret } = await turnOnTwoFactor(visitor, now);
    const browser = await passwordStep(email);
    const challenge = browser.cookies.get('pwpush_2fa')!;
    for (let left = 4; left >= 1; left--) expect((await code(browser, '123456')).html).toContain(`Tries left: ${left}.`);
    const fifth = await code(browser, '654321');
    expect([fifth.status, fifth.html]).toEqual([401, expect.stringContaining('Too many wrong codes. Sign in again with your password.')]);
    browser.cookies.set('pwpush_2fa', challenge);
    const replayed = await code(browser, totpCode(secret, now()));
    expect([replayed.status, replayed.html]).toEqual([401, expect.stringContaining('This sign-in has expired')]);
    expect((await kinds(email)).filter((kind) => kind === 'two_factor_failed')).toHaveLength(5);

    // 5 more on a second sign-in make SIGN_IN_LIMITS.accountFromAddress (10): the next try of this account from here waits.
    expect(SIGN_IN_LIMITS.accountFromAddress).toBe(10);
    const again = await passwordStep(email);
    for (let i = 0; i < 5; i++) expect((await code(again, '111111')).status).toBe(401);
    const limited = await new Visitor(app.baseUrl).submit('/users/sign_in', '/users/sign_in', { email, password: PASSWORD });
    expect([limited.status, limited.html]).toEqual([429, expect.stringContaining('Too many failed sign-in attempts.')]);
  });

  it('tries at most 5 of 10 codes sent at once, and lets one of two sign-ins with the same code through', async () => {
    const { email, visitor } = await person();
    const { secret } = await turnOnTwoFactor(visitor, now);
    const browser = await passwordStep(email);
    const csrf = /name="_csrf" value="([^"]+)"/.exec((await browser.get('/users/sign_in')).html)![1];
    const cookie = [...browser.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const send = (attempt: string) =>
      fetch(`${app.baseUrl}/users/sign_in`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ _csrf: csrf, otp_attempt: attempt }),
      });
    const statuses = (await Promise.all(Array.from({ length: 10 }, (_, i) => send(String(100000 + i))))).map((answer) => answer.status);
    expect(statuses).toEqual(Array(10).fill(401));
    expect((await kinds(email)).filter((kind) => kind === 'two_factor_failed')).toHaveLength(5);
    expect((await send(totpCode(secret, now()))).status).toBe(401);

    app.clock.advance(61_000);
    const [one, two] = [await passwordStep(email), await passwordStep(email)];
    const right = totpCode(secret, now());
    const answers = await Promise.all([code(one, right), code(two, right)]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([303, 401]);
  });

  it('turns off and makes new recovery codes only with the password or a code', async () => {
    const { email, visitor } = await person();
    const { secret, codes } = await turnOnTwoFactor(visitor, now);
    const off = (fields: Record<string, string>) =>
      visitor.submit('/user/two_factor', '/user/two_factor', { _method: 'delete', ...fields });
    for (const proof of [{}, { current_password: 'not my password' }, { code: '000000' }] as Record<string, string>[]) {
      const refused = await off(proof);
      expect([refused.status, refused.html]).toEqual([
        401,
        expect.stringContaining('That password or code is not right. Nothing was changed.'),
      ]);
    }
    const renewed = await visitor.submit('/user/two_factor', '/user/two_factor/backup_codes', { code: codes[0] });
    const fresh = listedCodes(renewed.html);
    expect([renewed.status, fresh.length, fresh.filter((c) => codes.includes(c))]).toEqual([200, 16, []]);
    expect((await visitor.submit('/user/two_factor', '/user/two_factor/backup_codes', { code: codes[1] })).status).toBe(401);
    app.clock.advance(30_000);
    expect((await visitor.submit('/user/two_factor', '/user/two_factor/backup_codes', { code: totpCode(secret, now()) })).status).toBe(200);

    const done = await off({ current_password: PASSWORD });
    expect([done.status, done.html]).toEqual([200, expect.stringContaining('Two-factor authentication is off.')]);
    expect(await app.query('SELECT id FROM recovery_codes WHERE user_id = ?', [(await users.find(email)).id])).toEqual([]);
    const direct = await new Visitor(app.baseUrl).submit('/users/sign_in', '/users/sign_in', { email, password: PASSWORD });
    expect([direct.status, direct.location]).toEqual([303, '/users/token']);
    expect((await app.service(SecurityLog).list((await users.find(email)).id)).events[1]).toMatchObject({
      kind: 'two_factor_disabled',
      detail: { by: 'self', proof: 'password' },
    });
    expect(await kinds(email)).toEqual([
      'account_created',
      'two_factor_enabled',
      'two_factor_failed',
      'two_factor_failed',
      'two_factor_failed',
      'recovery_code_used',
      'recovery_codes_generated',
      'two_factor_failed',
      'recovery_codes_generated',
      'two_factor_disabled',
    ]);
  });

  it('is turned off by the CLI (users:reset-2fa) for someone who lost the app and the codes', async () => {
    const { email, visitor } = await person();
    await turnOnTwoFactor(visitor, now);
    const env = {
      DATABASE_URL: app.database.url,
      DATA_DIR: mkdtempSync(join(tmpdir(), 'pwpush-2fa-cli-')),
      PWPUSH_MASTER_KEY: TEST_MASTER_KEY,
    };
    const reset = await runNode(CLI_MAIN, ['users:reset-2fa', '--email', email.toUpperCase()], env);
    expect([reset.code, JSON.parse(reset.stdout)]).toEqual([0, { email, two_factor: 'off', was_on: true }]);
    expect(JSON.parse((await runNode(CLI_MAIN, ['users:reset-2fa', '--email', email], env)).stdout)).toMatchObject({ was_on: false });
    const unknown = await runNode(CLI_MAIN, ['users:reset-2fa', '--email', 'nobody@example.com'], env);
    expect([unknown.code, unknown.stderr]).toEqual([2, expect.stringContaining('No user with the email nobody@example.com')]);
    const direct = await new Visitor(app.baseUrl).submit('/users/sign_in', '/users/sign_in', { email, password: PASSWORD });
    expect(direct.location).toBe('/users/token');
    expect((await app.service(SecurityLog).list((await users.find(email)).id)).events[1]).toMatchObject({
      kind: 'two_factor_disabled',
      detail: { by: 'cli' },
      ip: null,
    });
  });
});

describe('two-factor and the lockout (account emails on)', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp({
      PWP__ENABLE_USER_ACCOUNT_EMAILS: 'true',
      PWP__MAIL__SMTP_ADDRESS: '127.0.0.1',
      PWP__MAIL__SMTP_PORT: String(await closedSmtpPort()),
      PWP__MAIL__MAILER_SENDER: 'pwpush@example.com',
      PWP__HOST_DOMAIN: 'pwpush.example.com',
      TRUST_PROXY: '127.0.0.1',
    });
  });
  afterAll(() => app.close({ drop: true }));

  it('counts wrong codes toward the lockout: the tenth failure locks the account and ends the sign-ins waiting for a code', async () => {
    await app.service(UsersService).create('locked-2fa@example.com', PASSWORD);
    const owner = new Visitor(app.baseUrl);
    await owner.submit('/users/sign_in', '/users/sign_in', { email: 'locked-2fa@example.com', password: PASSWORD });
    const { secret } = await turnOnTwoFactor(owner, () => app.clock.now());
    app.clock.advance(30_000);
    // Each from an address of its own, so that the per-address sign-in limit (10 a minute) stays out of the way.
    const from = (n: number) => ({ 'x-forwarded-for': `198.51.100.${n}` });
    const passwordStep = async (n: number): Promise<Visitor> => {
      const visitor = new Visitor(app.baseUrl);
      const step = await visitor.submit(
        '/users/sign_in',
        '/users/sign_in',
        { email: 'locked-2fa@example.com', password: PASSWORD },
        from(n),
      );
      expect(step.html).toContain('name="otp_attempt"');
      return visitor;
    };
    const code = (visitor: Visitor, n: number, attempt: string) =>
      visitor.submit('/users/sign_in', '/users/sign_in', { otp_attempt: attempt }, from(n));
    const [first, second, third] = [await passwordStep(1), await passwordStep(2), await passwordStep(3)];
    for (let i = 0; i < 5; i++) expect((await code(first, 1, '111111')).status).toBe(401);
    for (let i = 0; i < 4; i++) expect((await code(second, 2, '111111')).status).toBe(401);
    expect((await code(third, 3, '111111')).status).toBe(401);

    const ended = await code(second, 2, totpCode(secret, app.clock.now()));
    expect([ended.status, ended.html]).toEqual([401, expect.stringContaining('This sign-in has expired')]);
    const refused = await new Visitor(app.baseUrl).submit(
      '/users/sign_in',
      '/users/sign_in',
      { email: 'locked-2fa@example.com', password: PASSWORD },
      from(4),
    );
    expect([refused.status, refused.html]).toEqual([401, expect.stringContaining('Incorrect email or password.')]);
    const { id } = await app.service(UsersService).find('locked-2fa@example.com');
    // A locked account's refused password is logged after the answer (UnseenWork), as an unknown one's would be.
    await app.service(UnseenWork).settled();
    const events = (await app.service(SecurityLog).list(id)).events.map((event) => event.kind);
    // The tenth failure locked it; the password after it was refused as a wrong one.
    expect([events.slice(0, 2), events.filter((kind) => kind === 'two_factor_failed').length]).toEqual([['sign_in_failed', 'locked'], 10]);
  });
});

describe('PWP__REQUIRE_MFA', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp({ PWP__REQUIRE_MFA: 'true' });
  });
  afterAll(() => app.close({ drop: true }));

  it('sends people without two-factor to its setup from every page, and answers their tokens 403 until it is on', async () => {
    const users = app.service(UsersService);
    const { api_token: token } = await users.create('required@example.com', PASSWORD);
    const api = client(app.baseUrl);
    const bearer = { authorization: `Bearer ${token}` };
    for (const answer of [
      await api.get('/api/v2/pushes/active', bearer),
      await api.post('/api/v2/pushes', { push: { payload: 'p' } }, bearer),
      await api.get('/api/v2/pushes/expired', { 'x-user-email': 'required@example.com', 'x-user-token': token }),
    ]) {
      expect([answer.status, answer.body]).toEqual([403, { error: expect.stringMatching(REQUIRED) }]);
    }
    const push = await api.createPush({ payload: 'anonymous still works' });

    const visitor = new Visitor(app.baseUrl);
    await visitor.submit('/users/sign_in', '/users/sign_in', { email: 'required@example.com', password: PASSWORD });
    for (const path of ['/', '/users/token', '/dashboard/active', `/p/${push.url_token}`, `/p/${push.url_token}/preview`]) {
      expect([path, (await visitor.get(path)).location]).toEqual([path, '/user/two_factor/backup_codes']);
    }
    expect((await visitor.submit('/user/two_factor', '/users/token', { name: 'x' })).location).toBe('/user/two_factor/backup_codes');
    const setup = await visitor.get('/user/two_factor');
    expect(setup.html).toContain('Your administrator requires two-factor authentication. Turn it on');

    await turnOnTwoFactor(visitor, () => app.clock.now());
    expect((await visitor.get('/users/token')).status).toBe(200);
    expect((await api.get('/api/v2/pushes/active', bearer)).status).toBe(200);
    const refused = await visitor.submit('/user/two_factor', '/user/two_factor', { _method: 'delete', current_password: PASSWORD });
    expect([refused.status, refused.html]).toEqual([403, expect.stringContaining('cannot be turned off')]);
    expect((await visitor.get('/user/two_factor')).html).not.toContain('name="_method"');

    // Sign-out is never held back.
    const other = new Visitor(app.baseUrl);
    await users.create('leaving@example.com', PASSWORD);
    await other.submit('/users/sign_in', '/users/sign_in', { email: 'leaving@example.com', password: PASSWORD });
    const out = await other.submit('/user/two_factor', '/users/sign_out', {});
    expect([out.status, out.location]).toEqual([303, '/users/sign_in']);
  });

  it('leaves alone people who sign in only by single sign-on (no password): their provider decides', async () => {
    const { api_token: token } = await app.service(UsersService).create('sso-only@example.com');
    expect((await client(app.baseUrl).get('/api/v2/pushes/active', { authorization: `Bearer ${token}` })).status).toBe(200);
  });
});
