import { loadSettings } from './settings';
import { settingsErrorFor } from './settings.testing';

const MAIL = { PWP__MAIL__SMTP_ADDRESS: 'smtp.example.com', PWP__MAIL__MAILER_SENDER: 'pwpush@example.com' };

describe('account settings', () => {
  it("defaults to the reference's: sign-up on, no account emails, sign-in on, 2 hours of inactivity, two-factor optional", () => {
    const { accounts } = loadSettings({});
    expect({ ...accounts, signupEmailPattern: accounts.signupEmailPattern.source }).toEqual({
      disableSignups: false,
      signupEmailPattern: '^[^@\\s]+@[^@\\s]+$',
      accountEmails: false,
      disableLogins: false,
      sessionTimeoutMs: 2 * 60 * 60 * 1000,
      requireMfa: false,
    });
  });

  it("reads the reference's Ruby pattern: \\A and \\z anchor the whole address", () => {
    const { signupEmailPattern } = loadSettings({ PWP__SIGNUP_EMAIL_REGEXP: String.raw`\A[^@\s]+@(hey\.com|example\.org)\z` }).accounts;
    expect(['a@hey.com', 'b@example.org', 'c@gmail.com', 'a@hey.com.evil.net', 'x\na@hey.com'].map((email) => signupEmailPattern.test(email))).toEqual([
      true,
      true,
      false,
      false,
      false,
    ]);
    // A literal backslash before A stays a backslash.
    expect(loadSettings({ PWP__SIGNUP_EMAIL_REGEXP: String.raw`^\\A` }).accounts.signupEmailPattern.test('\\A')).toBe(true);
    expect(settingsErrorFor({ PWP__SIGNUP_EMAIL_REGEXP: '([a-z' }).message).toMatch(/^Invalid setting PWP__SIGNUP_EMAIL_REGEXP: must be a regular expression/);
  });

  it('reads the session timeout as the reference writes it, within 5 minutes and 3 months', () => {
    const timeout = (value: string) => loadSettings({ PWP__LOGIN_SESSION_TIMEOUT: value }).accounts.sessionTimeoutMs;
    expect([timeout('15 minutes'), timeout('1 day'), timeout('3 Weeks')]).toEqual([15 * 60_000, 86_400_000, 21 * 86_400_000]);
    for (const value of ['1 minute', '1 year', 'disabled', 'soon']) {
      expect(settingsErrorFor({ PWP__LOGIN_SESSION_TIMEOUT: value }).message).toBe(
        'Invalid setting PWP__LOGIN_SESSION_TIMEOUT: must be a duration from 5 minutes to 3 months, such as "15 minutes", "2 hours" or "1 day".',
      );
    }
  });

  it('refuses account emails without mail, or without a base for their links, saying which', () => {
    expect(settingsErrorFor({ PWP__ENABLE_USER_ACCOUNT_EMAILS: 'true' }).message).toMatch(/^Invalid setting PWP__ENABLE_USER_ACCOUNT_EMAILS: true needs mail configured \(PWP__MAIL__SMTP_ADDRESS/);
    expect(settingsErrorFor({ ...MAIL, PWP__ENABLE_USER_ACCOUNT_EMAILS: 'true' }).message).toMatch(/needs the base of the links mails carry: PWP__HOST_DOMAIN .* or PWP__OVERRIDE_BASE_URL\.$/);
    expect(loadSettings({ ...MAIL, PWP__ENABLE_USER_ACCOUNT_EMAILS: 'true', PWP__HOST_DOMAIN: 'pwpush.example.com' }).accounts.accountEmails).toBe(true);
    expect(loadSettings({ ...MAIL, PWP__ENABLE_USER_ACCOUNT_EMAILS: 'true', PWP__OVERRIDE_BASE_URL: 'https://pwpush.example.com' }).accounts.accountEmails).toBe(true);
  });

  it('reads the switches', () => {
    const { accounts } = loadSettings({ PWP__DISABLE_SIGNUPS: 'true', PWP__DISABLE_LOGINS: 'yes', PWP__REQUIRE_MFA: '1' });
    expect([accounts.disableSignups, accounts.disableLogins, accounts.requireMfa]).toEqual([true, true, true]);
  });
});
