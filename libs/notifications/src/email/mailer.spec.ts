import { createServer, type Server, type Socket } from 'node:net';
import { type Env, loadSettings } from '@app/config';
import { closedSmtpPort, type Mailpit, startMailpit } from '../../../../test/support/mailpit';
import { renderEmail } from './email-templates';
import { MailDeliveryError, Mailer, type OutgoingMail } from './mailer';

/** Through a real SMTP server (Mailpit, built by scripts/install-mailpit.sh): nothing here is mocked. */
describe('Mailer', () => {
  let mailpit: Mailpit;
  const mailerFor = (env: Env): Mailer => new Mailer(loadSettings(env));
  const MAIL: OutgoingMail = {
    to: ['alice@example.com', 'bob@example.com'],
    subject: 'Your push “Wi-Fi” was viewed',
    text: 'Plain text body.\n',
    html: '<p>HTML <strong>body</strong>.</p>',
  };

  beforeAll(async () => {
    mailpit = await startMailpit();
  });
  afterAll(async () => {
    await mailpit?.stop();
  });
  beforeEach(async () => {
    await mailpit.deleteAll();
  });

  it('delivers one mail to every recipient, from the sender, with the subject and both bodies', async () => {
    const sut = mailerFor(mailpit.env);

    const receipt = await sut.send(MAIL);

    expect(receipt).toEqual({ accepted: ['alice@example.com', 'bob@example.com'], rejected: [] });
    const [summary] = await mailpit.waitForMessages(1);
    const message = await mailpit.message(summary.ID);
    expect(message.From).toEqual({ Name: 'Password Pusher', Address: 'pwpush@example.com' });
    expect(message.To.map((to) => to.Address)).toEqual(['alice@example.com', 'bob@example.com']);
    expect(message.Subject).toBe('Your push “Wi-Fi” was viewed');
    expect(message.Text).toBe('Plain text body.\n');
    expect(message.HTML).toBe('<p>HTML <strong>body</strong>.</p>');
    expect(message.headers['Content-Type'][0]).toMatch(/^multipart\/alternative;/);
  });

  it('delivers a rendered template intact, link and all', async () => {
    const mail = renderEmail('push-link', {
      url: 'https://pwpush.example.com/p/abcdefghijklmnopqrstuv',
      sender: 'owner@example.com',
      expiresAt: new Date('2026-11-26T15:30:00Z'),
      viewsRemaining: 3,
      passphraseProtected: true,
    });

    await mailerFor(mailpit.env).send({ to: ['carol@example.com'], ...mail });

    const [summary] = await mailpit.waitForMessages(1);
    const message = await mailpit.message(summary.ID);
    expect(message.Subject).toBe(mail.subject);
    expect(message.Text).toBe(mail.text);
    expect(message.HTML).toContain('<a href="https://pwpush.example.com/p/abcdefghijklmnopqrstuv"');
  });

  it('signs in with the user name and password when they are set', async () => {
    const sut = mailerFor({ ...mailpit.env, PWP__MAIL__SMTP_USER_NAME: 'apikey', PWP__MAIL__SMTP_PASSWORD: 'smtp-secret', PWP__MAIL__SMTP_AUTHENTICATION: 'login' });

    await sut.send(MAIL);

    const [summary] = await mailpit.waitForMessages(1);
    expect(summary.Username).toBe('apikey');
  });

  it('fails at once with a safe message when the SMTP server is down (nothing listens on its port)', async () => {
    const port = await closedSmtpPort();
    const sut = mailerFor({ ...mailpit.env, PWP__MAIL__SMTP_PORT: String(port), PWP__MAIL__SMTP_USER_NAME: 'apikey', PWP__MAIL__SMTP_PASSWORD: 'smtp-secret' });
    const started = Date.now();

    const error = await failureOf(sut.send(MAIL));

    expect(Date.now() - started).toBeLessThan(2000);
    expect(error.message).toBe(`Mail not sent via 127.0.0.1:${port}: cannot connect to the SMTP server (ESOCKET).`);
    expect(error).toMatchObject({ code: 'ESOCKET', permanent: false });
    expect(JSON.stringify(error)).not.toContain('smtp-secret');
  });

  it('gives up within the open timeout on a server that accepts the connection but never greets', async () => {
    const silent = await listenSilently();
    const sut = mailerFor({ ...mailpit.env, PWP__MAIL__SMTP_PORT: String(silent.port), PWP__MAIL__SMTP_OPEN_TIMEOUT: '1' });
    const started = Date.now();

    try {
      const error = await failureOf(sut.send(MAIL));

      expect(Date.now() - started).toBeLessThan(3000);
      expect(error.message).toBe(`Mail not sent via 127.0.0.1:${silent.port}: the SMTP server did not answer in time (ETIMEDOUT).`);
      expect(error.permanent).toBe(false);
    } finally {
      await silent.close();
    }
  });

  it('tells a refusal for good (5xx) from one worth retrying (4xx)', async () => {
    const sut = mailerFor(mailpit.env);
    try {
      await mailpit.refuseSenders(550);
      expect(await failureOf(sut.send(MAIL))).toMatchObject({ code: 'EENVELOPE', responseCode: 550, permanent: true });
      await mailpit.refuseSenders(451);
      const error = await failureOf(sut.send(MAIL));
      expect(error).toMatchObject({ code: 'EENVELOPE', responseCode: 451, permanent: false });
      expect(error.message).toBe(`Mail not sent via ${mailpit.smtp.host}:${mailpit.smtp.port}: the SMTP server refused the sender or every recipient (EENVELOPE, SMTP 451).`);
    } finally {
      await mailpit.acceptAgain();
    }

    await sut.send(MAIL);
    expect(await mailpit.waitForMessages(1)).toHaveLength(1);
  });

  it('refuses to send without SMTP settings, saying which one is missing', async () => {
    const sut = mailerFor({});

    expect(sut.configured).toBe(false);
    expect(await failureOf(sut.send(MAIL))).toMatchObject({ code: 'ENOTCONFIGURED', message: expect.stringContaining('PWP__MAIL__SMTP_ADDRESS') });
  });
});

async function failureOf(sending: Promise<unknown>): Promise<MailDeliveryError> {
  const error = await sending.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof MailDeliveryError)) throw new Error(`expected a MailDeliveryError, got ${String(error)}`);
  return error;
}

/** A TCP server that takes connections and says nothing: an SMTP server hung before its greeting. */
async function listenSilently(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
