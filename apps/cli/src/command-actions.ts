import { INestApplicationContext, Logger, LoggerService } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AccountError, TwoFactorService, UsersService } from '@app/auth';
import { Settings } from '@app/config';
import { dataSourceOptions, openDataSource, runMigrations } from '@app/database';
import { ExpirySweepService, PushExpiry } from '@app/pushes';
import { CliModule } from './cli.module';
import { CommandError, type FlagValues } from './commands';

/**
 * What each command does, with the app's services. Loaded only when a command runs: the command
 * line, its help and its refusals need none of the application (commands.ts).
 */

/** stdout carries the command's JSON result only; warnings and errors go to stderr, progress chatter nowhere. */
const toStderr = (message: unknown, context?: string): void => {
  process.stderr.write(`${context ? `[${context}] ` : ''}${String(message)}\n`);
};
/** Contexts whose errors are the failure main.ts reports, once and in words: Nest's report of it, and TypeORM's "Retrying" (it does not retry). */
const REPORTED_AT_EXIT = new Set(['ExceptionHandler', 'TypeOrmModule']);
const stderrLogger: LoggerService = {
  log: () => undefined,
  warn: toStderr,
  error: (message: unknown, ...rest: unknown[]) => {
    const context = rest.at(-1);
    if (typeof context !== 'string' || !REPORTED_AT_EXIT.has(context)) toStderr(message, typeof context === 'string' ? context : undefined);
  },
};

Logger.overrideLogger(stderrLogger);

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

async function setAdmin(settings: Settings, email: string, admin: boolean): Promise<void> {
  await withServices(settings, async (app) => {
    const users = app.get(UsersService);
    const changed = await users.setAdmin(email, admin);
    print({ email: (await users.find(email)).email, admin, changed });
  });
}

export async function migrate(_flags: FlagValues, settings: Settings): Promise<void> {
  const dataSource = await openDataSource(await dataSourceOptions(settings));
  try {
    await runMigrations(dataSource);
    print({ migrations: 'up-to-date', pending: await dataSource.showMigrations() });
  } finally {
    await dataSource.destroy();
  }
}

export const sweep = (_flags: FlagValues, settings: Settings): Promise<void> =>
  withServices(settings, async (app) => {
    const result = await app.get(ExpirySweepService).sweep();
    print({ ...result, peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024) });
  });

export const createUser = (flags: FlagValues, settings: Settings): Promise<void> =>
  withServices(settings, async (app) => {
    print(await app.get(UsersService).create(flags.email!, flags.password, { admin: flags.admin === 'true' }));
  });

export const promote = (flags: FlagValues, settings: Settings): Promise<void> => setAdmin(settings, flags.email!, true);

export const demote = (flags: FlagValues, settings: Settings): Promise<void> => setAdmin(settings, flags.email!, false);

/** Recovering an account without mail: a new password, the lock lifted, every session ended. */
export const setPassword = (flags: FlagValues, settings: Settings): Promise<void> =>
  withServices(settings, async (app) => {
    // From stdin, so it is in no shell history and no process list.
    const password = (await readStdin()).replace(/\r?\n$/, '');
    const { sessions_ended } = await app.get(UsersService).setPassword(flags.email!, password);
    print({ email: (await app.get(UsersService).find(flags.email!)).email, password: 'set', sessions_ended });
  });

export const issueToken = (flags: FlagValues, settings: Settings): Promise<void> =>
  withServices(settings, async (app) => {
    const days = flags['expires-in-days'];
    print(await app.get(UsersService).issueToken(flags.email!, flags.name, days === undefined ? undefined : Number(days)));
  });

export const revokeTokens = (flags: FlagValues, settings: Settings): Promise<void> =>
  withServices(settings, async (app) => {
    const email = flags.email!;
    print({ email: (await app.get(UsersService).find(email)).email, revoked: await app.get(UsersService).revokeTokens(email) });
  });

export const disable = (flags: FlagValues, settings: Settings): Promise<void> =>
  withServices(settings, async (app) => {
    print({ ...(await app.get(UsersService).disable(flags.email!)), disabled: true });
  });

export const enable = (flags: FlagValues, settings: Settings): Promise<void> =>
  withServices(settings, async (app) => {
    const users = app.get(UsersService);
    await users.enable(flags.email!);
    print({ email: (await users.find(flags.email!)).email, disabled: false });
  });

export const listUsers = (_flags: FlagValues, settings: Settings): Promise<void> =>
  withServices(settings, async (app) => (await app.get(UsersService).list()).forEach(print));

export const deleteUser = (flags: FlagValues, settings: Settings): Promise<void> =>
  withServices(settings, async (app) => {
    const users = app.get(UsersService);
    const user = await users.find(flags.email!);
    const expired = await app.get(PushExpiry).expireAllOwnedBy(user.id);
    await users.delete(user.email);
    print({ email: user.email, deleted: true, expired_pushes: expired });
  });

export const resetTwoFactor = (flags: FlagValues, settings: Settings): Promise<void> =>
  withServices(settings, async (app) => {
    const { email, was_on } = await app.get(TwoFactorService).reset(flags.email!, 'cli');
    print({ email, two_factor: 'off', was_on });
  });
