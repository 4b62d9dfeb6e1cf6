import { readSecretFiles } from './secret-files';
import { Env, loadSettings, settingsWarnings } from './settings';
import { settingsErrorFor } from './settings.testing';

const SMTP: Env = { PWP__MAIL__SMTP_ADDRESS: 'smtp.example.com', PWP__MAIL__MAILER_SENDER: '"Password Pusher" <pwpush@example.com>' };


describe('mail settings', () => {
  it('send no mail without an SMTP address, with the recipients\' feature on and 500 a day', () => {
    const sut = loadSettings({}).mail;

    expect(sut).toEqual({ smtp: undefined, sender: undefined, notifyByEmail: { enabled: true, dailyLimit: 500 }, emailAvailable: false, linkBaseUrl: undefined });
  });

  it("take the links' host from the reference's PWP__HOST_DOMAIN and PWP__HOST_PROTOCOL", () => {
    expect(loadSettings({ PWP__HOST_DOMAIN: 'pwpush.example.com' }).mail.linkBaseUrl).toBe('https://pwpush.example.com');
    expect(loadSettings({ PWP__HOST_DOMAIN: 'localhost:5100', PWP__HOST_PROTOCOL: 'http' }).mail.linkBaseUrl).toBe('http://localhost:5100');
    expect(settingsErrorFor({ PWP__HOST_DOMAIN: 'https://pwpush.example.com' }).message).toMatch(/^Invalid setting PWP__HOST_DOMAIN: /);
    expect(settingsErrorFor({ PWP__HOST_DOMAIN: 'pwpush.example.com', PWP__HOST_PROTOCOL: 'ftp' }).message).toMatch(/^Invalid setting PWP__HOST_PROTOCOL: /);
  });

  it('take the links\' base from PWP__OVERRIDE_BASE_URL when PWP__HOST_DOMAIN is unset, PWP__HOST_DOMAIN winning', () => {
    expect(loadSettings({ PWP__OVERRIDE_BASE_URL: 'https://push.example.net/' }).mail.linkBaseUrl).toBe('https://push.example.net');
    expect(loadSettings({ PWP__OVERRIDE_BASE_URL: 'https://push.example.net', PWP__HOST_DOMAIN: 'pwpush.example.com' }).mail.linkBaseUrl).toBe('https://pwpush.example.com');
  });

  it('count mail as not configured without a base for its links (never the request\'s host), and warn naming both settings', () => {
    const sut = loadSettings(SMTP);

    expect(sut.mail.emailAvailable).toBe(false);
    expect(settingsWarnings(sut)).toEqual([expect.stringContaining('neither PWP__HOST_DOMAIN nor PWP__OVERRIDE_BASE_URL')]);
    for (const base of [{ PWP__HOST_DOMAIN: 'pwpush.example.com' }, { PWP__OVERRIDE_BASE_URL: 'https://pwpush.example.com' }]) {
      expect(loadSettings({ ...SMTP, ...base }).mail.emailAvailable).toBe(true);
      expect(settingsWarnings(loadSettings({ ...SMTP, ...base }))).toEqual([]);
    }
    // Nothing to warn about where no mail was asked for.
    expect(settingsWarnings(loadSettings({}))).toEqual([]);
    expect(settingsWarnings(loadSettings({ ...SMTP, PWP__NOTIFY_BY_EMAIL__ENABLED: 'false' }))).toEqual([]);
  });

  it('with an address, a sender and a base for links: port 587, STARTTLS when offered, certificates checked, 10-second timeouts, no sign-in', () => {
    const sut = loadSettings({ ...SMTP, PWP__HOST_DOMAIN: 'pwpush.example.com' }).mail;

    expect(sut.smtp).toEqual({
      host: 'smtp.example.com',
      port: 587,
      heloName: undefined,
      auth: undefined,
      tls: 'starttls-when-offered',
      verifyCertificate: true,
      openTimeoutMs: 10_000,
      readTimeoutMs: 10_000,
    });
    expect(sut.sender).toBe('"Password Pusher" <pwpush@example.com>');
    expect(sut.emailAvailable).toBe(true);
  });

  it('read every reference name', () => {
    const sut = loadSettings({
      ...SMTP,
      PWP__MAIL__SMTP_PORT: '2525',
      PWP__MAIL__SMTP_DOMAIN: 'pwpush.example.com',
      PWP__MAIL__SMTP_USER_NAME: 'apikey',
      PWP__MAIL__SMTP_PASSWORD: 'p@ss w0rd',
      PWP__MAIL__SMTP_AUTHENTICATION: 'CRAM_MD5',
      PWP__MAIL__SMTP_STARTTLS: 'true',
      PWP__MAIL__SMTP_OPENSSL_VERIFY_MODE: 'none',
      PWP__MAIL__SMTP_OPEN_TIMEOUT: '3',
      PWP__MAIL__SMTP_READ_TIMEOUT: '20',
      PWP__NOTIFY_BY_EMAIL__DAILY_LIMIT: '0',
    }).mail;

    expect(sut.smtp).toEqual({
      host: 'smtp.example.com',
      port: 2525,
      heloName: 'pwpush.example.com',
      auth: { user: 'apikey', password: 'p@ss w0rd', method: 'cram_md5' },
      tls: 'starttls-required',
      verifyCertificate: false,
      openTimeoutMs: 3000,
      readTimeoutMs: 20_000,
    });
    expect(sut.notifyByEmail).toEqual({ enabled: true, dailyLimit: 0 });
  });

  it('use TLS from the first byte on port 465, or when PWP__MAIL__SMTP_TLS says so', () => {
    expect(loadSettings({ ...SMTP, PWP__MAIL__SMTP_PORT: '465' }).mail.smtp?.tls).toBe('implicit');
    expect(loadSettings({ ...SMTP, PWP__MAIL__SMTP_PORT: '2465', PWP__MAIL__SMTP_TLS: 'true' }).mail.smtp?.tls).toBe('implicit');
    expect(loadSettings({ ...SMTP, PWP__MAIL__SMTP_PORT: '465', PWP__MAIL__SMTP_TLS: 'false' }).mail.smtp?.tls).toBe('starttls-when-offered');
  });

  it('turn STARTTLS off with the reference\'s PWP__MAIL__SMTP_ENABLE_STARTTLS_AUTO=false', () => {
    expect(loadSettings({ ...SMTP, PWP__MAIL__SMTP_ENABLE_STARTTLS_AUTO: 'false' }).mail.smtp?.tls).toBe('none');
  });

  it('accept the OpenSSL constants 0 and 1 for the verify mode, as the reference does', () => {
    expect(loadSettings({ ...SMTP, PWP__MAIL__SMTP_OPENSSL_VERIFY_MODE: '0' }).mail.smtp?.verifyCertificate).toBe(false);
    expect(loadSettings({ ...SMTP, PWP__MAIL__SMTP_OPENSSL_VERIFY_MODE: '1' }).mail.smtp?.verifyCertificate).toBe(true);
  });

  it('ignore an authentication method without credentials, as the reference does', () => {
    expect(loadSettings({ ...SMTP, PWP__MAIL__SMTP_AUTHENTICATION: 'plain' }).mail.smtp?.auth).toBeUndefined();
  });

  it('make mail unavailable when PWP__NOTIFY_BY_EMAIL__ENABLED=false, keeping SMTP for the rest', () => {
    const sut = loadSettings({ ...SMTP, PWP__HOST_DOMAIN: 'pwpush.example.com', PWP__NOTIFY_BY_EMAIL__ENABLED: 'false' }).mail;

    expect(sut.emailAvailable).toBe(false);
    expect(sut.smtp?.host).toBe('smtp.example.com');
  });

  it('take the password from PWP__MAIL__SMTP_PASSWORD_FILE', () => {
    const env = readSecretFiles({ ...SMTP, PWP__MAIL__SMTP_USER_NAME: 'apikey', PWP__MAIL__SMTP_PASSWORD_FILE: '/run/secrets/smtp' }, () => 's3cret\n');

    expect(loadSettings(env).mail.smtp?.auth?.password).toBe('s3cret');
  });

  it.each([
    [{ PWP__MAIL__SMTP_ADDRESS: 'smtp.example.com' }, 'PWP__MAIL__MAILER_SENDER: required when PWP__MAIL__SMTP_ADDRESS is set'],
    [{ ...SMTP, PWP__MAIL__SMTP_ADDRESS: 'smtp://smtp.example.com:25' }, 'PWP__MAIL__SMTP_ADDRESS: must be a host name'],
    [{ ...SMTP, PWP__MAIL__SMTP_PORT: '0' }, 'PWP__MAIL__SMTP_PORT: must be an integer from 1 to 65535'],
    [{ ...SMTP, PWP__MAIL__MAILER_SENDER: 'Password Pusher' }, 'PWP__MAIL__MAILER_SENDER: must be an email address'],
    [{ ...SMTP, PWP__MAIL__SMTP_AUTHENTICATION: 'xoauth2' }, 'PWP__MAIL__SMTP_AUTHENTICATION: must be one of plain, login, cram_md5'],
    [{ ...SMTP, PWP__MAIL__SMTP_USER_NAME: 'apikey' }, 'PWP__MAIL__SMTP_PASSWORD: set both PWP__MAIL__SMTP_USER_NAME and PWP__MAIL__SMTP_PASSWORD, or neither'],
    [{ ...SMTP, PWP__MAIL__SMTP_STARTTLS: 'maybe' }, 'PWP__MAIL__SMTP_STARTTLS: must be true or false'],
    [{ ...SMTP, PWP__MAIL__SMTP_PORT: '465', PWP__MAIL__SMTP_STARTTLS: 'true' }, 'PWP__MAIL__SMTP_STARTTLS: TLS from the first byte'],
    [{ ...SMTP, PWP__MAIL__SMTP_OPENSSL_VERIFY_MODE: 'strict' }, 'PWP__MAIL__SMTP_OPENSSL_VERIFY_MODE: must be one of none, peer'],
    [{ ...SMTP, PWP__MAIL__SMTP_OPEN_TIMEOUT: '0' }, 'PWP__MAIL__SMTP_OPEN_TIMEOUT: must be an integer from 1 to 300'],
    [{ PWP__NOTIFY_BY_EMAIL__DAILY_LIMIT: '-1' }, 'PWP__NOTIFY_BY_EMAIL__DAILY_LIMIT: must be an integer from 0'],
    [{ PWP__NOTIFY_BY_EMAIL__ENABLED: 'sometimes' }, 'PWP__NOTIFY_BY_EMAIL__ENABLED: must be true or false'],
  ])('stop start-up on %j, naming the variable', (env, message) => {
    expect(settingsErrorFor(env).message).toContain(`Invalid setting ${message}`);
  });

  it('never quote the SMTP password in a message', () => {
    const message = settingsErrorFor({ ...SMTP, PWP__MAIL__SMTP_PASSWORD: 'hunter2-secret' }).message;

    expect(message).toContain('PWP__MAIL__SMTP_PASSWORD');
    expect(message).not.toContain('hunter2-secret');
  });
});
