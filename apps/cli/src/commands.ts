import { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AccountError, TOKEN_LIFETIMES_DAYS, TwoFactorService, UsersService } from '@app/auth';
import { Settings } from '@app/config';
import { dataSourceOptions, openDataSource, runMigrations } from '@app/database';
import { ExpirySweepService, PushExpiry } from '@app/pushes';
import { CliModule } from './cli.module';

/** A user mistake (bad argument, unknown user, ...): printed without a stack trace, exit code 2. */
export class CommandError extends Error {}

/**
 * A command's flags: each takes a value (`--email x` or `--email=x`), or is a switch (`--admin`,
 * read as the value 'true'), and is given at most once.
 */
export interface Flag {
  /** What the value is, as the help shows it: `<email>`; empty for a switch. */
  value: string;
  doc: string;
  required?: boolean;
  switch?: true;
}

export type FlagValues = Record<string, string | undefined>;

export interface Command {
  summary: string;
  flags?: Record<string, Flag>;
  run(flags: FlagValues, settings: Settings): Promise<void>;
}

const EMAIL: Flag = { value: '<email>', doc: "the user's email address", required: true };

const print = (value: unknown): void => {
  process.stdout.write(`${JSON.stringify(value)}\n`);
};

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write('Password: ');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Runs `work` with the app's services, and turns account errors into command errors. */
async function withServices(settings: Settings, work: (app: INestApplicationContext) => Promise<void>): Promise<void> {
  const app = await NestFactory.createApplicationContext(CliModule.forRoot(settings), { abortOnError: false });
  try {
    await work(app);
  } catch (error) {
    throw error instanceof AccountError ? new CommandError(error.message) : error;
  } finally {
    await app.close();
  }
}

async function setAdmin(app: INestApplicationContext, email: string, admin: boolean): Promise<void> {
  const users = app.get(UsersService);
  const changed = await users.setAdmin(email, admin);
  print({ email: (await users.find(email)).email, admin, changed });
}

/** Recovering an account without mail: a new password, the lock lifted, every session ended. */
const SET_PASSWORD: Command = {
  summary: 'set or reset the password for the pages (/users/sign_in), read from standard input; ends their sessions and lifts a lockout',
  flags: { email: EMAIL },
  run: (flags, settings) =>
    withServices(settings, async (app) => {
      // From stdin, so it is in no shell history and no process list.
      const password = (await readStdin()).replace(/\r?\n$/, '');
      const { sessions_ended } = await app.get(UsersService).setPassword(flags.email!, password);
      print({ email: (await app.get(UsersService).find(flags.email!)).email, password: 'set', sessions_ended });
    }),
};

export const COMMANDS: Record<string, Command> = {
  'migrations:run': {
    summary: 'apply pending database migrations (under the migration lock: a named lock on MySQL, an advisory lock on PostgreSQL)',
    run: async (_flags, settings) => {
      const dataSource = await openDataSource(await dataSourceOptions(settings));
      try {
        await runMigrations(dataSource);
        print({ migrations: 'up-to-date', pending: await dataSource.showMigrations() });
      } finally {
        await dataSource.destroy();
      }
    },
  },
  'expiry:sweep': {
    summary: 'expire elapsed pushes and purge old expired ones now, once (what the server does every interval)',
    run: (_flags, settings) =>
      withServices(settings, async (app) => {
        const result = await app.get(ExpirySweepService).sweep();
        print({ ...result, peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024) });
      }),
  },
  'users:create': {
    summary: 'create a user; prints its first API token',
    flags: {
      email: EMAIL,
      password: { value: '<password>', doc: 'a password for the pages (/users/sign_in); users:password reads it from standard input instead' },
      admin: { value: '', switch: true, doc: 'make the user an administrator' },
    },
    run: (flags, settings) =>
      withServices(settings, async (app) => {
        print(await app.get(UsersService).create(flags.email!, flags.password, { admin: flags.admin === 'true' }));
      }),
  },
  'users:promote': {
    summary: 'make a user an administrator',
    flags: { email: EMAIL },
    run: (flags, settings) => withServices(settings, (app) => setAdmin(app, flags.email!, true)),
  },
  'users:demote': {
    summary: 'make an administrator a user like any other',
    flags: { email: EMAIL },
    run: (flags, settings) => withServices(settings, (app) => setAdmin(app, flags.email!, false)),
  },
  'users:password': SET_PASSWORD,
  'users:reset-password': { ...SET_PASSWORD, summary: `${SET_PASSWORD.summary} (the same as users:password)` },
  'users:token': {
    summary: 'issue a new token (replaces the token of that name)',
    flags: {
      email: EMAIL,
      name: { value: '<name>', doc: 'the token\'s name (default: default)' },
      'expires-in-days': { value: '<days>', doc: `the token stops working after ${TOKEN_LIFETIMES_DAYS.join(', ')} days (default: never)` },
    },
    run: (flags, settings) =>
      withServices(settings, async (app) => {
        const days = flags['expires-in-days'];
        print(await app.get(UsersService).issueToken(flags.email!, flags.name, days === undefined ? undefined : Number(days)));
      }),
  },
  'users:revoke-tokens': {
    summary: "revoke all of the user's tokens",
    flags: { email: EMAIL },
    run: (flags, settings) =>
      withServices(settings, async (app) => {
        const email = flags.email!;
        print({ email: (await app.get(UsersService).find(email)).email, revoked: await app.get(UsersService).revokeTokens(email) });
      }),
  },
  'users:disable': {
    summary: "disable a user: no more sign-in (password or single sign-on); ends their sessions and revokes their tokens at once",
    flags: { email: EMAIL },
    run: (flags, settings) =>
      withServices(settings, async (app) => {
        print({ ...(await app.get(UsersService).disable(flags.email!)), disabled: true });
      }),
  },
  'users:enable': {
    summary: 'let a disabled user sign in again (their revoked tokens stay revoked)',
    flags: { email: EMAIL },
    run: (flags, settings) =>
      withServices(settings, async (app) => {
        const users = app.get(UsersService);
        await users.enable(flags.email!);
        print({ email: (await users.find(flags.email!)).email, disabled: false });
      }),
  },
  'users:list': {
    summary: 'list users, one JSON object per line: how each signs in (password, sso), whether disabled, token count (no secrets)',
    run: (_flags, settings) => withServices(settings, async (app) => (await app.get(UsersService).list()).forEach(print)),
  },
  'users:delete': {
    summary: "expire the user's active pushes, remove the user and their tokens",
    flags: { email: EMAIL },
    run: (flags, settings) =>
      withServices(settings, async (app) => {
        const users = app.get(UsersService);
        const user = await users.find(flags.email!);
        const expired = await app.get(PushExpiry).expireAllOwnedBy(user.id);
        await users.delete(user.email);
        print({ email: user.email, deleted: true, expired_pushes: expired });
      }),
  },
  'users:reset-2fa': {
    summary: "turn off a person's two-factor authentication (for one who lost both their app and their recovery codes); they set it up again after signing in",
    flags: { email: EMAIL },
    run: (flags, settings) =>
      withServices(settings, async (app) => {
        const { email, was_on } = await app.get(TwoFactorService).reset(flags.email!, 'cli');
        print({ email, two_factor: 'off', was_on });
      }),
  },
};
