import { UsersService } from '@app/auth';
import { SIGN_IN_LIMITS } from '@app/rate-limit';
import { closedSmtpPort } from '../support/mailpit';
import { startTestApp, type TestApp } from '../support/test-app';
import { Visitor } from '../support/visitor';

const PASSWORD = 'a long password';
const NEW_PASSWORD = 'another long password';

/**
 * What an attacker tries against people's accounts, beyond the flows' own specs: a stolen session
 * guessing the password behind it.
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

  /** A person with an account, signed in in `visitor`. */
  async function person(): Promise<{ email: string; visitor: Visitor }> {
    const email = `attacked-${++n}@example.com`;
    await users.create(email, PASSWORD);
    const visitor = new Visitor(app.baseUrl);
    expect((await visitor.submit('/users/sign_in', '/users/sign_in', { email, password: PASSWORD })).status).toBe(303);
    return { email, visitor };
  }

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
});
