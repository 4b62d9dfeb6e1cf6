import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { client } from '../support/http';
import { startMailpit } from '../support/mailpit';
import { CLI_MAIN, runNode, startServer, waitForOutput } from '../support/server-process';
import { TEST_MASTER_KEY } from '../support/test-app';
import { createTestDatabase, TestDatabase } from '../support/test-database';
import { listedCodes, totpCode, turnOnTwoFactor } from '../support/two-factor';
import { Visitor } from '../support/visitor';
import { startWebhookReceiver } from '../support/webhook-receiver';

/**
 * Everything the built server writes, at LOG_LEVEL=debug, through a whole session that touches
 * each secret in each place it can travel (body, query, headers, paths), must contain none of them;
 * nor may the webhooks the session's events send to a third party's receiver (the owner did not
 * opt in to the full url_token).
 */
describe('logs and webhooks of a full session', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  it('never contain a payload, note, passphrase, API token or url_token', async () => {
    const receiver = await startWebhookReceiver();
    const secrets = {
      payload: 'Payload-5f2a-Pangolin',
      note: 'Note-8c3d-Okapi',
      passphrase: 'Pass-1e9b-Capybara',
      wrongPassphrase: 'Wrong-6d4f-Tarsier',
      formPayload: 'Form-3a7c-Numbat',
      malformed: 'Malformed-2b8e-Quoll',
      invalid: 'Invalid-9f1d-Dugong',
      bogusToken: 'Bogus-4e6a-Saiga',
      filename: 'Filename-7b2c-Pudu.txt',
      fileContent: 'FileContent-0d5e-Markhor',
    };
    const env = { DATABASE_URL: database.url, DATA_DIR: mkdtempSync(join(tmpdir(), 'pwpush-logs-')), PWPUSH_MASTER_KEY: TEST_MASTER_KEY };
    const created = await runNode(CLI_MAIN, ['users:create', '--email', 'logs@example.com'], env);
    const apiToken = (JSON.parse(created.stdout) as { api_token: string }).api_token;
    const server = await startServer({
      ...env,
      LOG_LEVEL: 'debug',
      PWP__NOTIFICATIONS__POLL_SECONDS: '1',
      PWP__WEBHOOKS__ALLOW_HTTP: 'true',
      PWP__WEBHOOKS__ALLOWED_HOSTS: '127.0.0.1',
    });
    const api = client(server.url);
    const bearer = { authorization: `Bearer ${apiToken}` };
    const events = ['push.created', 'push.viewed', 'push.expired', 'push.passphrase_failed', 'push.file_downloaded'];
    expect((await api.post('/api/v2/webhooks', { url: receiver.url, events }, bearer)).status).toBe(201);

    const push = await api.createPush({ payload: secrets.payload, note: secrets.note, passphrase: secrets.passphrase, name: 'n' }, bearer);
    const urlToken = push.url_token;
    const path = `/api/v2/pushes/${urlToken}`;
    const answers = [
      await api.get('/api/v2/pushes/active', bearer),
      await api.get(`/api/v2/pushes/active?access_token=${apiToken}`),
      await api.get('/api/v2/pushes/expired', { 'x-user-email': 'logs@example.com', 'x-user-token': apiToken }),
      await api.get(`${path}/audit`, bearer),
      await api.get(`${path}?passphrase=${secrets.wrongPassphrase}`),
      await api.get(path, { 'x-passphrase': secrets.wrongPassphrase }),
      await api.get(`${path}?passphrase=${secrets.passphrase}`),
      await api.get(path, { 'x-passphrase': secrets.passphrase, 'x-request-id': 'trace-logs-1' }),
      await api.get(`${path}?passphrase=${secrets.passphrase}&passphrase=${secrets.wrongPassphrase}`),
      await api.get(`${path}/preview`),
      await api.get('/api/v2/pushes/active', { authorization: `Bearer ${secrets.bogusToken}` }),
      await api.raw('POST', '/api/v2/pushes', { body: `{"push":{"payload":"${secrets.malformed}"`, headers: { 'content-type': 'application/json' } }),
      await api.raw('POST', '/api/v2/pushes', { body: `push[payload]=${secrets.formPayload}&push[note]=${secrets.note}`, headers: { 'content-type': 'application/x-www-form-urlencoded' } }),
      await api.post('/api/v2/pushes', { push: { payload: secrets.invalid, expire_after_days: 1000, passphrase: secrets.passphrase } }),
      await api.post('/api/v2/pushes', { push: { payload: secrets.invalid, kind: 'file' } }),
      await api.delete(`${path}?passphrase=${secrets.passphrase}`, bearer),
      await api.get(path, bearer),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 401, 401, 200, 200, 400, 200, 401, 400, 201, 422, 401, 200, 200]);

    // A file push: its name and bytes, its token and its download link.
    const upload = new FormData();
    upload.append('push[files][]', new Blob([secrets.fileContent]), secrets.filename);
    const filePush = (await (await fetch(`${server.url}/api/v2/pushes`, { method: "POST", body: upload, headers: bearer })).json()) as { url_token: string };
    const [file] = (await api.get(`/api/v2/pushes/${filePush.url_token}`)).body.files as { url: string }[];
    expect(await (await fetch(file.url)).text()).toBe(secrets.fileContent);
    const link = file.url.split('/').pop()!;

    // The recipient's page: the passphrase travels in form bodies only.
    const pagePush = await api.createPush({ payload: secrets.payload, passphrase: secrets.passphrase });
    const pageUrl = `${server.url}/p/${pagePush.url_token}`;
    const form = await fetch(`${pageUrl}/r`);
    const cookie = form.headers.getSetCookie()[0].split(';')[0];
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1];
    const post = (passphrase: string) =>
      fetch(`${pageUrl}/access`, { method: 'POST', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ _csrf: csrf, passphrase }) });
    expect((await post(secrets.wrongPassphrase)).status).toBe(401);
    const revealed = await post(secrets.passphrase);
    expect([revealed.status, await revealed.text()]).toEqual([200, expect.stringContaining(secrets.payload)]);
    // A secret request: its message, its answer (with a file) and passphrase, its token and its file's link.
    const asked = await api.post('/api/v2/requests', { request: { request: secrets.payload, note: secrets.note, passphrase: secrets.passphrase, response_file_attachments: true } }, bearer);
    const requestToken = asked.body.url_token as string;
    const answer = new FormData();
    answer.append('request[response]', secrets.formPayload);
    answer.append('request[files][]', new Blob([secrets.fileContent]), secrets.filename);
    const answered = await fetch(`${server.url}/api/v2/requests/${requestToken}/respond?passphrase=${secrets.passphrase}`, { method: 'PATCH', body: answer });
    expect(answered.status).toBe(200);
    const wrong = await fetch(`${server.url}/api/v2/requests/${requestToken}/respond`, {
      method: 'PATCH',
      headers: { 'x-passphrase': secrets.wrongPassphrase, 'content-type': 'application/json' },
      body: JSON.stringify({ request: { response: secrets.invalid } }),
    });
    expect(wrong.status).toBe(401);
    const [requestFile] = (await api.get(`/api/v2/requests/${requestToken}`, bearer)).body.files as { url: string }[];
    expect(await (await fetch(requestFile.url)).text()).toBe(secrets.fileContent);
    const requestLink = requestFile.url.split('/').pop()!;
    // Until the worker has sent everything (the queue's gauge: events not dispatched and deliveries pending).
    const waiting = async () => Number(/^pwpush_notification_queue_depth (\S+)$/m.exec(await (await fetch(`${server.url}/metrics`)).text())?.[1]);
    for (const deadline = Date.now() + 20_000; (await waiting()) > 0 && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await waiting()).toBe(0);
    expect(await server.stop()).toBe(0);
    await receiver.close();

    // The owner's pushes' events went out: created, viewed, a failed passphrase, expired, a file downloaded.
    const bodies = receiver.received.map((hook) => hook.body);
    expect(new Set(bodies.map((body) => (JSON.parse(body) as { type: string }).type))).toEqual(new Set(events));
    const output = server.output();
    for (const secret of [...Object.values(secrets), apiToken, urlToken, answers[12].body.url_token as string, filePush.url_token, link, pagePush.url_token, csrf, requestToken, requestLink]) {
      expect(output).not.toContain(secret);
      for (const body of bodies) expect(body).not.toContain(secret);
    }
    const lines = output.trim().split('\n');
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
    const requests = lines.map((line) => JSON.parse(line) as { req?: { id: string; url: string } }).filter((entry) => entry.req);
    expect(requests.length).toBeGreaterThanOrEqual(15);
    expect(requests.map((entry) => entry.req!.id)).toContain('trace-logs-1');
    expect(requests.map((entry) => entry.req!.url)).toContain('/api/v2/pushes/:url_token/audit');
    expect(requests.map((entry) => entry.req!.url)).toContain('/api/v2/pushes/:url_token/files/:link');
    expect(requests.map((entry) => entry.req!.url)).toContain('/api/v2/requests/:url_token/respond');
    expect(requests.map((entry) => entry.req!.url)).toContain('/p/:url_token/access');
  });

  it('never contain an account link token, a password or a session, and show the boot code only in its one line for the operator', async () => {
    const mailpit = await startMailpit();
    const fresh = await createTestDatabase();
    try {
      const passwords = { admin: 'Admin-7c1e-Serval-pw', person: 'Person-2d9a-Fossa-pw', reset: 'Reset-5b3f-Kinkajou', changed: 'Changed-8e4d-Binturong', wrong: 'Wrong-1a6c-Margay-pw' };
      const env = {
        DATABASE_URL: fresh.url,
        DATA_DIR: mkdtempSync(join(tmpdir(), 'pwpush-logs-')),
        PWPUSH_MASTER_KEY: TEST_MASTER_KEY,
        ...mailpit.env,
        PWP__ENABLE_USER_ACCOUNT_EMAILS: 'true',
        PWP__HOST_DOMAIN: 'pwpush.example.com',
        NOTIFICATIONS_WORKER_ENABLED: 'true',
        PWP__NOTIFICATIONS__POLL_SECONDS: '1',
        LOG_LEVEL: 'debug',
        // The wrong passwords below come from another address: failures count toward the account page's forms too (the sign-in limits).
        TRUST_PROXY: '127.0.0.1',
      };
      const server = await startServer(env);
      const visitor = new Visitor(server.url);
      const [, bootCode] = await waitForOutput(server, /boot code to create the administrator account: ([0-9a-f]{32})/);
      const passwordFields = (password: string) => ({ 'user[password]': password, 'user[password_confirmation]': password });
      const made = await visitor.submit('/first_run', '/first_run', { boot_code: bootCode, 'user[email]': 'admin@example.com', ...passwordFields(passwords.admin) });
      expect(made.location).toBe('/users/token');
      await visitor.submit('/users/token', '/users/sign_out', {});

      // Each mailed link: the token read from the mail, its page opened, its form sent.
      let mails = 0;
      const nextToken = async (name: string): Promise<string> => {
        const [latest] = await mailpit.waitForMessages(++mails, 15_000);
        return new RegExp(`${name}=([\\w-]+)`).exec((await mailpit.message(latest.ID)).Text)![1];
      };
      const person = new Visitor(server.url);
      await person.submit('/users/sign_up', '/users', { 'user[email]': 'person@example.com', ...passwordFields(passwords.person) });
      const confirmation = await nextToken('confirmation_token');
      await person.get(`/users/confirmation?confirmation_token=${confirmation}`);
      expect((await person.submit(`/users/confirmation?confirmation_token=${confirmation}`, '/users/confirmation', { confirmation_token: confirmation })).status).toBe(200);
      for (let n = 0; n < 10; n++) await person.submit('/users/sign_in', '/users/sign_in', { email: 'person@example.com', password: passwords.wrong }, { 'x-forwarded-for': '198.51.100.7' });
      const unlock = await nextToken('unlock_token');
      expect((await person.submit(`/users/unlock?unlock_token=${unlock}`, '/users/unlock', { unlock_token: unlock })).status).toBe(200);
      await person.submit('/users/password/new', '/users/password/new', { 'user[email]': 'person@example.com' });
      const reset = await nextToken('reset_password_token');
      const resetDone = await person.submit(`/users/password/edit?reset_password_token=${reset}`, '/users/password', { reset_password_token: reset, ...passwordFields(passwords.reset) });
      expect(resetDone.location).toBe('/users/token');
      const session = person.cookies.get('pwpush_session')!;
      const changed = await person.submit('/users/edit', '/users/edit/password', { 'user[current_password]': passwords.reset, ...passwordFields(passwords.changed) });
      expect(changed.html).toContain('Your password is changed.');
      await mailpit.waitForMessages(mails + 2, 15_000);
      expect(await server.stop()).toBe(0);

      const output = server.output();
      for (const secret of [...Object.values(passwords), confirmation, unlock, reset, session]) expect(output).not.toContain(secret);
      const withCode = output.split('\n').filter((line) => line.includes(bootCode));
      expect(withCode).toHaveLength(1);
      expect(JSON.parse(withCode[0])).toMatchObject({ context: 'FirstRun', level: 40 });
      const urls = output.split('\n').flatMap((line) => (line ? [(JSON.parse(line) as { req?: { url: string } }).req?.url] : [])).filter(Boolean);
      expect(urls).toEqual(expect.arrayContaining(['/users/confirmation', '/users/unlock', '/users/password/edit', '/first_run']));
    } finally {
      await mailpit.stop();
      await fresh.drop();
    }
  });

  it("never contain a two-factor key, code or recovery code, a password or a sign-in's cookies", async () => {
    const password = 'Password-5c1e-Serow';
    const env = { DATABASE_URL: database.url, DATA_DIR: mkdtempSync(join(tmpdir(), 'pwpush-logs-')), PWPUSH_MASTER_KEY: TEST_MASTER_KEY };
    await runNode(CLI_MAIN, ['users:create', '--email', 'logs-2fa@example.com', '--password', password], env);
    const server = await startServer({ ...env, LOG_LEVEL: 'debug' });
    const signIn = async (): Promise<Visitor> => {
      const visitor = new Visitor(server.url);
      await visitor.submit('/users/sign_in', '/users/sign_in', { email: 'logs-2fa@example.com', password });
      return visitor;
    };
    const owner = await signIn();
    const { secret, codes } = await turnOnTwoFactor(owner);
    const setupCode = totpCode(secret);
    const seen = [secret, secret.replace(/ /g, ''), ...codes, setupCode, password];
    const step = await signIn();
    seen.push(step.cookies.get('pwpush_2fa')!);
    const wrong = setupCode === '918273' ? '918274' : '918273';
    seen.push(wrong);
    expect((await step.submit('/users/sign_in', '/users/sign_in', { otp_attempt: wrong })).status).toBe(401);
    expect((await step.submit('/users/sign_in', '/users/sign_in', { otp_attempt: codes[0] })).status).toBe(303);
    seen.push(step.cookies.get('pwpush_session')!);
    const renewed = listedCodes(
      (await owner.submit('/user/two_factor', '/user/two_factor/backup_codes', { current_password: password })).html,
    );
    seen.push(...renewed);
    const off = await owner.submit('/user/two_factor', '/user/two_factor', { _method: 'delete', code: renewed[5] });
    expect(off.html).toContain('Two-factor authentication is off.');
    expect(await server.stop()).toBe(0);

    const output = server.output();
    expect(output).toContain('/user/two_factor/backup_codes');
    // A 6-digit code could be a part of a longer number (a timestamp): only a number of its own would be the code.
    const appears = (value: string): boolean =>
      /^\d{6}$/.test(value) ? new RegExp(`(?<!\\d)${value}(?!\\d)`).test(output) : output.includes(value);
    for (const value of seen) expect([value, appears(value)]).toEqual([value, false]);
  });
});
