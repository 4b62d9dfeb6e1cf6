import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Env } from '@app/config';
import { freePort } from './helpers';

/**
 * A real SMTP server for the mail tests: Mailpit keeps every message it accepts and lists them over
 * its HTTP API, so a test sends through the same SMTP code path as production and then reads what
 * arrived. Built by scripts/install-mailpit.sh (npm test and .ci/run call it).
 *
 * Failure modes, for the tests of what happens when mail cannot go out:
 * - SMTP down: point the sender at `closedSmtpPort()` (nothing listens, connections are refused at
 *   once), or `stop()` this server. Either way nothing is received, so nothing can be checked here.
 * - SMTP up but refusing: `refuseSenders(451)` makes every transaction fail at MAIL FROM with that
 *   code (4xx: a temporary failure, try later; 5xx: a permanent one) until `acceptAgain()`; the
 *   server stays up, so a test can watch retries succeed once it accepts again.
 */
export interface Mailpit {
  /** Where to send: 127.0.0.1 and a free port, any user name and password accepted, no TLS. */
  smtp: { host: string; port: number };
  /** The mail settings that point the app at this server (PWP__MAIL__*), with a sender. */
  env: Env;
  /** What arrived, newest first. */
  messages(): Promise<MailpitSummary[]>;
  /** One message in full: both bodies (SMTP's CRLF line ends back to \n, as written) and every header. */
  message(id: string): Promise<MailpitMessage>;
  /** Polls until at least `count` messages arrived; fails after `timeoutMs` saying how many did. */
  waitForMessages(count: number, timeoutMs?: number): Promise<MailpitSummary[]>;
  deleteAll(): Promise<void>;
  refuseSenders(errorCode: number): Promise<void>;
  acceptAgain(): Promise<void>;
  stop(): Promise<void>;
}

export interface MailpitAddress {
  Name: string;
  Address: string;
}

/** An entry of `GET /api/v1/messages` (the fields the tests read). */
export interface MailpitSummary {
  ID: string;
  From: MailpitAddress;
  To: MailpitAddress[];
  Subject: string;
  Created: string;
  /** The user name the sender signed in with; empty without a sign-in. */
  Username: string;
}

/** `GET /api/v1/message/{id}` plus its headers (`GET /api/v1/message/{id}/headers`). */
export interface MailpitMessage extends MailpitSummary {
  Text: string;
  HTML: string;
  headers: Record<string, string[]>;
}

const MAILPIT = join(__dirname, '..', '..', '.cache', 'bin', 'mailpit');
export const MAILPIT_SENDER = '"Password Pusher" <pwpush@example.com>';

/** `allowedRecipients`: a regular expression; Mailpit refuses every other recipient (as a server refuses an unknown mailbox). */
export async function startMailpit(options: { allowedRecipients?: string } = {}): Promise<Mailpit> {
  if (!existsSync(MAILPIT)) throw new Error(`${MAILPIT} is missing: run bash scripts/install-mailpit.sh (npm test does).`);
  // Mailpit has no in-memory mode: a fresh database file in a temporary directory, removed on stop.
  const dir = mkdtempSync(join(tmpdir(), 'pwpush-mailpit-'));
  const smtpPort = await freePort();
  let httpPort = await freePort();
  while (httpPort === smtpPort) httpPort = await freePort();
  const only = options.allowedRecipients === undefined ? [] : ['--smtp-allowed-recipients', options.allowedRecipients];
  const child = spawn(MAILPIT, [...mailpitArguments(dir, smtpPort, httpPort), ...only], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const collect = (chunk: Buffer) => (output += chunk.toString());
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const api = `http://127.0.0.1:${httpPort}`;
  await waitUntilReady(api, child, () => output);

  const call = async (method: string, path: string, body?: unknown): Promise<unknown> => {
    const response = await fetch(`${api}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`Mailpit ${method} ${path}: ${response.status} ${await response.text()}`);
    return response.headers.get('content-type')?.includes('json') ? response.json() : response.text();
  };
  const messages = async () => ((await call('GET', '/api/v1/messages')) as { messages: MailpitSummary[] }).messages;
  const setSenderChaos = (errorCode: number, probability: number) =>
    call('PUT', '/api/v1/chaos', { Sender: { ErrorCode: errorCode, Probability: probability } });

  return {
    smtp: { host: '127.0.0.1', port: smtpPort },
    env: {
      PWP__MAIL__SMTP_ADDRESS: '127.0.0.1',
      PWP__MAIL__SMTP_PORT: String(smtpPort),
      PWP__MAIL__MAILER_SENDER: MAILPIT_SENDER,
    },
    messages,
    message: async (id) => {
      const message = (await call('GET', `/api/v1/message/${encodeURIComponent(id)}`)) as Omit<MailpitMessage, 'headers'>;
      const headers = (await call('GET', `/api/v1/message/${encodeURIComponent(id)}/headers`)) as Record<string, string[]>;
      return { ...message, Text: message.Text.replace(/\r\n/g, '\n'), HTML: message.HTML.replace(/\r\n/g, '\n'), headers };
    },
    waitForMessages: async (count, timeoutMs = 5000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const arrived = await messages();
        if (arrived.length >= count) return arrived;
        if (Date.now() > deadline) throw new Error(`Mailpit: ${arrived.length} of ${count} messages arrived within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    deleteAll: async () => void (await call('DELETE', '/api/v1/messages')),
    refuseSenders: async (errorCode) => void (await setSenderChaos(errorCode, 100)),
    acceptAgain: async () => void (await setSenderChaos(451, 0)),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A local port nothing listens on: an SMTP server that is down refuses the connection at once. */
export async function closedSmtpPort(): Promise<number> {
  return freePort();
}

function mailpitArguments(dir: string, smtpPort: number, httpPort: number): string[] {
  return [
    ['--smtp', `127.0.0.1:${smtpPort}`],
    ['--listen', `127.0.0.1:${httpPort}`],
    ['--database', join(dir, 'mailpit.db')],
    // Any credentials, sent in the clear: the tests exercise the login without setting up TLS.
    ['--smtp-auth-accept-any'],
    ['--smtp-auth-allow-insecure'],
    // The failure switch behind refuseSenders(); off (probability 0) until asked.
    ['--enable-chaos'],
    ['--smtp-disable-rdns'],
    ['--disable-version-check'],
    ['--quiet'],
  ].flat();
}

async function waitUntilReady(api: string, child: ChildProcess, output: () => string): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    if (child.exitCode !== null) throw new Error(`mailpit exited: ${output()}`);
    try {
      if ((await fetch(`${api}/readyz`)).ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`mailpit did not become ready: ${output()}`);
}
