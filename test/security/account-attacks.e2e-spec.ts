import { TwoFactorService, UnseenWork, UsersService } from '@app/auth';
import { FieldCipher } from '@app/crypto';
import { ACCOUNT_MAIL_TOKEN_CONTEXT } from '@app/events';
import { SIGN_IN_LIMITS } from '@app/rate-limit';
import { freePort } from '../support/helpers';
import { closedSmtpPort } from '../support/mailpit';
import { startOidcProvider, type TestOidcProvider } from '../support/oidc-provider';
import { signInWithProvider } from '../support/oidc-sign-in';
import { startTestApp, type TestApp } from '../support/test-app';
import { totpCode, turnOnTwoFactor } from '../support/two-factor';
import { Visitor } from '../support/visitor';

const PASSWORD = 'a long password';
const NEW_PASSWORD = 'another long password';

/**
 * What an attacker tries against people's accounts, beyond the flows' own specs: a stolen session
 * guessing the password behind it, and a mailed link outliving the change it should have voided.
 * Account emails on, with a mail server never reached: the outbox keeps what would be sent.
 */
describe('attacks on accounts', () => {
  let app: TestApp;
  let users: UsersService;
  let n = 0;

  beforeAll(async () => {
    app = await startTestApp({
      PWP__ENABLE_USER_ACCOUNT_EMAILS: 'true',
      PWP__MAIL__SMTP_ADDRESS: '127.0.0.1',
      PWP__MAIL__SMTP_PORT: String(await closedSmtpPort()),
      PWP__MAIL__MAILER_SENDER: 'pwpush@example.com',
      PWP__HOST_DOMAIN: 'pwpush.example.com',
    });
    users = app.service(UsersService);
  });
  afterAll(() => app.close({ drop: true }));
  // A new minute for every test: the sign-in limits (in process here) start afresh.
  beforeEach(() => app.clock.advance(61_000));

  /** The token of the last link of `kind` mailed to `to`, as the worker would unseal it. */
  async function mailedLink(to: string, kind: 'reset' | 'confirmation'): Promise<string> {
    await app.service(UnseenWork).settled();
    const mails = (await app.query<{ payload: string }>("SELECT payload FROM outbox WHERE type = 'account.mail' ORDER BY id")).map((row) => JSON.parse(row.payload) as { kind: string; to: string; sealed_token?: string });
    const mail = mails.filter((entry) => entry.to === to && entry.kind === kind).pop();
    if (!mail?.sealed_token) throw new Error(`no ${kind} mail to ${to}`);
    return app.service(FieldCipher).decrypt(Buffer.from(mail.sealed_token, 'base64url'), ACCOUNT_MAIL_TOKEN_CONTEXT);
  }
  /** A reset link mailed to the person, asked for by anyone (the form takes any address). */
  async function resetLink(email: string): Promise<string> {
    expect((await new Visitor(app.baseUrl).submit('/users/password/new', '/users/password/new', { 'user[email]': email })).status).toBe(200);
    return mailedLink(email, 'reset');
  }
  /** Whether the reset link still sets a password: its page, and its form posted. */
  async function resetWorks(token: string): Promise<boolean> {
    const visitor = new Visitor(app.baseUrl);
    const page = await visitor.get(`/users/password/edit?reset_password_token=${token}`);
    const posted = await visitor.submit(`/users/password/edit?reset_password_token=${token}`, '/users/password', { reset_password_token: token, 'user[password]': 'the thief wants this', 'user[password_confirmation]': 'the thief wants this' });
    // The page offers the form exactly when the link works.
    expect(page.status).toBe(posted.status === 303 ? 200 : 404);
    return posted.status === 303;
  }

  /** A person with an account, signed in in `visitor`. */
  async function person(): Promise<{ email: string; visitor: Visitor }> {
    const email = `attacked-${++n}@example.com`;
    await users.create(email, PASSWORD);
    const visitor = new Visitor(app.baseUrl);
    expect((await visitor.submit('/users/sign_in', '/users/sign_in', { email, password: PASSWORD })).status).toBe(303);
    return { email, visitor };
  }

  it('tries no more passwords from one address than the limit allows when they are sent together', async () => {
    const email = `together-${++n}@example.com`;
    await users.create(email, PASSWORD);
    const from = { 'x-forwarded-for': '198.51.100.90' };
    const statuses = await Promise.all(
      Array.from({ length: 2 * SIGN_IN_LIMITS.accountFromAddress }, (_, i) =>
        new Visitor(app.baseUrl).submit('/users/sign_in', '/users/sign_in', { email, password: `guess ${i}` }, from).then((got) => got.status),
      ),
    );
    // Each is counted before its password is checked: as many are checked (401) as the limit allows, the rest refused untried.
    expect([statuses.filter((status) => status === 401).length, statuses.filter((status) => status === 429).length]).toEqual([
      SIGN_IN_LIMITS.accountFromAddress,
      SIGN_IN_LIMITS.accountFromAddress,
    ]);
  });

  it("holds back a stolen session guessing the account's password on the account page, as the sign-in form does", async () => {
    const { email, visitor } = await person();
    const changePassword = (current: string) => visitor.submit('/users/edit', '/users/edit/password', { current_password: current, password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD });
    for (let i = 0; i < SIGN_IN_LIMITS.accountFromAddress; i++) expect((await changePassword(`guess number ${i}`)).status).toBe(422);
    // The right one now finds the forms held back, as at sign-in: nothing changes.
    const held = await changePassword(PASSWORD);
    expect([held.status, held.html]).toEqual([429, expect.stringContaining('Too many failed sign-in attempts.')]);
    for (const [action, fields] of [
      ['/users/edit/email', { email: 'elsewhere@example.com', current_password: PASSWORD }],
      ['/users/delete', { current_password: PASSWORD }],
    ] as const) {
      expect([action, (await visitor.submit('/users/edit', action, fields)).status]).toEqual([action, 429]);
    }
    expect(await users.checkPassword(email, PASSWORD)).not.toBeNull();
    expect((await app.query('SELECT unconfirmed_email FROM users WHERE email = ?', [email]))[0].unconfirmed_email).toBeNull();
    // The same limits as the sign-in form's: a sign-in of this account from this address waits too.
    expect((await new Visitor(app.baseUrl).submit('/users/sign_in', '/users/sign_in', { email, password: PASSWORD })).status).toBe(429);
    app.clock.advance(61_000);
    expect((await changePassword(PASSWORD)).status).toBe(200);
  });

  it('checks no more current passwords on the account page than the limit allows when a stolen session sends them together', async () => {
    const { visitor } = await person();
    const statuses = await Promise.all(
      Array.from({ length: 2 * SIGN_IN_LIMITS.accountFromAddress }, (_, i) =>
        visitor.submit('/users/edit', '/users/edit/password', { current_password: `guess ${i}`, password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD }).then((got) => got.status),
      ),
    );
    expect([statuses.filter((status) => status === 422).length, statuses.filter((status) => status === 429).length]).toEqual([
      SIGN_IN_LIMITS.accountFromAddress,
      SIGN_IN_LIMITS.accountFromAddress,
    ]);
  });

  it('voids a mailed reset link when the password changes (account page, or the CLI) or the address does, as the reference does', async () => {
    // The link proves control of the address at the time it was mailed; a person who changes their
    // password because that mailbox was read must not leave a working link in it.
    const changed = await person();
    const link = await resetLink(changed.email);
    const change = await changed.visitor.submit('/users/edit', '/users/edit/password', { current_password: PASSWORD, password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD });
    expect(change.status).toBe(200);
    expect(await resetWorks(link)).toBe(false);
    expect(await users.checkPassword(changed.email, NEW_PASSWORD)).not.toBeNull();

    const byCli = await person();
    const cliLink = await resetLink(byCli.email);
    await users.setPassword(byCli.email, NEW_PASSWORD);
    expect(await resetWorks(cliLink)).toBe(false);

    const moved = await person();
    const movedLink = await resetLink(moved.email);
    const newEmail = `moved-${n}@example.com`;
    expect((await moved.visitor.submit('/users/edit', '/users/edit/email', { email: newEmail, current_password: PASSWORD })).status).toBe(200);
    const confirmation = await mailedLink(newEmail, 'confirmation');
    expect((await new Visitor(app.baseUrl).submit(`/users/confirmation?confirmation_token=${confirmation}`, '/users/confirmation', { confirmation_token: confirmation })).status).toBe(200);
    expect(await resetWorks(movedLink)).toBe(false);
    expect(await users.checkPassword(newEmail, PASSWORD)).not.toBeNull();

    // The control: a link nothing voided still works.
    const untouched = await person();
    expect(await resetWorks(await resetLink(untouched.email))).toBe(true);
  });

  it('ends a sign-in waiting for its code when the password changes, as it ends sessions', async () => {
    const { email, visitor } = await person();
    const { secret } = await turnOnTwoFactor(visitor, () => app.clock.now());
    // Someone else with the old password, stopped at the code.
    const thief = new Visitor(app.baseUrl);
    expect((await thief.submit('/users/sign_in', '/users/sign_in', { email, password: PASSWORD })).html).toContain('name="otp_attempt"');
    expect((await visitor.submit('/users/edit', '/users/edit/password', { current_password: PASSWORD, password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD })).status).toBe(200);
    app.clock.advance(30_000);
    const code = await thief.submit('/users/sign_in', '/users/sign_in', { otp_attempt: totpCode(secret, app.clock.now()) });
    expect([code.status, code.html]).toEqual([401, expect.stringContaining('This sign-in has expired')]);
    expect(thief.cookies.has('pwpush_session')).toBe(false);
  });

  it("signs a person out everywhere when an operator turns their two-factor off (a lost phone may hold a session)", async () => {
    const { email, visitor } = await person();
    await turnOnTwoFactor(visitor, () => app.clock.now());
    expect((await visitor.get('/users/token')).status).toBe(200);
    expect(await app.service(TwoFactorService).reset(email, 'cli')).toEqual({ email, was_on: true });
    expect((await visitor.get('/users/token')).location).toBe('/users/sign_in');
    expect(await app.query('SELECT id FROM sessions WHERE user_id = (SELECT id FROM users WHERE email = ?)', [email])).toEqual([]);
  });

  it("answers the forms about an address without waiting for what an account's answer writes, so that timing tells nothing", async () => {
    // Every form below writes (a transaction) only when the address has an account, or only when
    // it has none (a sign-up): the answer must not wait for that. Transactions are held here until
    // the answers are in; one that waited for its write would not answer at all.
    const known = `known-${++n}@example.com`;
    const [unconfirmed, locked] = [`unconfirmed-${n}@example.com`, `locked-${n}@example.com`];
    for (const email of [known, unconfirmed, locked]) await users.create(email, PASSWORD);
    const { visitor: mover } = await person();
    await app.query('UPDATE users SET confirmed_at = NULL WHERE email = ?', [unconfirmed]);
    await app.query('UPDATE users SET locked_at = ? WHERE email = ?', [app.clock.now(), locked]);
    const manager = app.dataSource.manager;
    const transaction = manager.transaction.bind(manager);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    manager.transaction = ((...args: unknown[]) => released.then(() => (transaction as (...a: unknown[]) => Promise<unknown>)(...args)));
    const forms: [string, string, Record<string, string>, number][] = [
      ['/users/sign_in', '/users/sign_in', { email: known, password: 'a wrong password' }, 401],
      ['/users/sign_in', '/users/sign_in', { email: locked, password: PASSWORD }, 401],
      ['/users/password/new', '/users/password/new', { 'user[email]': known }, 200],
      ['/users/confirmation/new', '/users/confirmation/new', { 'user[email]': unconfirmed }, 200],
      ['/users/unlock/new', '/users/unlock/new', { 'user[email]': locked }, 200],
      ['/users/sign_up', '/users', { 'user[email]': `new-${n}@example.com`, 'user[password]': PASSWORD, 'user[password_confirmation]': PASSWORD }, 200],
      // A signed-in person moving to an address no account has (one that has an account gets no link).
      ['/users/edit', '/users/edit/email', { email: `free-${n}@example.com`, current_password: PASSWORD }, 200],
    ];
    try {
      for (const [page, action, fields, status] of forms) {
        let timer: NodeJS.Timeout | undefined;
        const answer = (action === '/users/edit/email' ? mover : new Visitor(app.baseUrl)).submit(page, action, fields).then((got) => got.status);
        const waited = new Promise<string>((resolve) => (timer = setTimeout(() => resolve('still waiting'), 3000)));
        const first = await Promise.race([answer, waited]);
        clearTimeout(timer);
        expect([action, fields, first]).toEqual([action, fields, status]);
      }
    } finally {
      manager.transaction = transaction;
      release();
    }
    // What was not waited for is done all the same.
    await app.service(UnseenWork).settled();
    const mails = (await app.query<{ payload: string }>("SELECT payload FROM outbox WHERE type = 'account.mail'")).map((row) => JSON.parse(row.payload) as { kind: string; to: string });
    for (const [kind, to] of [['reset', known], ['confirmation', unconfirmed], ['unlock', locked], ['confirmation', `new-${n}@example.com`], ['confirmation', `free-${n}@example.com`]]) {
      expect(mails).toContainEqual(expect.objectContaining({ kind, to }));
    }
    const [account] = await app.query<{ failed_attempts: unknown }>('SELECT failed_attempts FROM users WHERE email = ?', [known]);
    expect(Number(account.failed_attempts)).toBe(1);
  });
});

/**
 * Pre-hijacking: someone signs up the address of a person who signs in by single sign-on (account
 * emails on: the account waits for its confirmation), before that person's first sign-in there.
 */
describe('single sign-on to an address someone else signed up', () => {
  let provider: TestOidcProvider;
  let app: TestApp;

  beforeAll(async () => {
    const port = await freePort();
    provider = await startOidcProvider({ redirectUris: [`http://127.0.0.1:${port}/users/auth/oidc/callback`], postLogoutUris: [] });
    app = await startTestApp(
      {
        PWP__OIDC__ISSUER: provider.issuer,
        PWP__OIDC__CLIENT_ID: provider.clientId,
        PWP__OIDC__CLIENT_SECRET: provider.clientSecret,
        PWP__ENABLE_USER_ACCOUNT_EMAILS: 'true',
        PWP__MAIL__SMTP_ADDRESS: '127.0.0.1',
        PWP__MAIL__SMTP_PORT: String(await closedSmtpPort()),
        PWP__MAIL__MAILER_SENDER: 'pwpush@example.com',
        PWP__HOST_DOMAIN: 'pwpush.example.com',
      },
      undefined,
      { port },
    );
    // Not the first run.
    await app.createUser('admin@example.com');
  });
  afterAll(async () => {
    await app?.close({ drop: true });
    await provider?.stop();
  });

  it("drops the password that sign-up chose once the provider vouches for the address, so whoever chose it cannot sign in when the owner confirms", async () => {
    const maker = new Visitor(app.baseUrl);
    const chosen = 'the password of whoever signed up';
    expect((await maker.submit('/users/sign_up', '/users', { 'user[email]': 'alice@example.com', 'user[password]': chosen, 'user[password_confirmation]': chosen })).status).toBe(200);
    await app.service(UnseenWork).settled();
    const [mail] = (await app.query<{ payload: string }>("SELECT payload FROM outbox WHERE type = 'account.mail'")).map((row) => JSON.parse(row.payload) as { to: string; sealed_token: string });
    expect(mail.to).toBe('alice@example.com');
    const confirmation = app.service(FieldCipher).decrypt(Buffer.from(mail.sealed_token, 'base64url'), ACCOUNT_MAIL_TOKEN_CONTEXT);

    // Alice's first sign-in by her provider links the account of her (verified) address.
    expect(await signInWithProvider(app.baseUrl, 'alice')).toMatchObject({ status: 303, location: '/users/token', session: true });
    // She then presses the confirmation link in her mailbox: it was voided; the address is confirmed already.
    const pressed = await new Visitor(app.baseUrl).submit(`/users/confirmation/new`, '/users/confirmation', { confirmation_token: confirmation });
    expect(pressed.status).toBe(404);
    const [alice] = await app.query<{ password_hash: string | null; confirmed_at: unknown }>("SELECT password_hash, confirmed_at FROM users WHERE email = 'alice@example.com'");
    expect([alice.password_hash, alice.confirmed_at !== null]).toEqual([null, true]);
    const signIn = await maker.submit('/users/sign_in', '/users/sign_in', { email: 'alice@example.com', password: chosen });
    expect([signIn.status, maker.cookies.has('pwpush_session')]).toEqual([401, false]);
  });
});
