import type { Settings } from '@app/config';
import type * as Actions from './command-actions';

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

/** The lifetimes users:token accepts (UsersService's TOKEN_LIFETIMES_DAYS; commands.spec.ts keeps them equal). */
export const TOKEN_LIFETIMES_IN_HELP = '30, 90, 365';

/**
 * The command that runs `action` of command-actions.ts, loaded then: the command line, the help
 * and every refusal of an argument answer without loading the application.
 */
const action =
  (name: keyof typeof Actions) =>
  async (flags: FlagValues, settings: Settings): Promise<void> =>
    (await import('./command-actions'))[name](flags, settings);

const SET_PASSWORD: Command = {
  summary: 'set or reset the password for the pages (/users/sign_in), read from standard input; ends their sessions and lifts a lockout',
  flags: { email: EMAIL },
  run: action('setPassword'),
};

export const COMMANDS: Record<string, Command> = {
  'migrations:run': {
    summary: 'apply pending database migrations (under the migration lock: a named lock on MySQL, an advisory lock on PostgreSQL)',
    run: action('migrate'),
  },
  'expiry:sweep': {
    summary: 'expire elapsed pushes and purge old expired ones now, once (what the server does every interval)',
    run: action('sweep'),
  },
  'users:create': {
    summary: 'create a user; prints its first API token',
    flags: {
      email: EMAIL,
      password: { value: '<password>', doc: 'a password for the pages (/users/sign_in); users:password reads it from standard input instead' },
      admin: { value: '', switch: true, doc: 'make the user an administrator' },
    },
    run: action('createUser'),
  },
  'users:promote': {
    summary: 'make a user an administrator',
    flags: { email: EMAIL },
    run: action('promote'),
  },
  'users:demote': {
    summary: 'make an administrator a user like any other',
    flags: { email: EMAIL },
    run: action('demote'),
  },
  'users:password': SET_PASSWORD,
  'users:reset-password': { ...SET_PASSWORD, summary: `${SET_PASSWORD.summary} (the same as users:password)` },
  'users:token': {
    summary: 'issue a new token (replaces the token of that name)',
    flags: {
      email: EMAIL,
      name: { value: '<name>', doc: 'the token\'s name (default: default)' },
      'expires-in-days': { value: '<days>', doc: `the token stops working after ${TOKEN_LIFETIMES_IN_HELP} days (default: never)` },
    },
    run: action('issueToken'),
  },
  'users:revoke-tokens': {
    summary: "revoke all of the user's tokens",
    flags: { email: EMAIL },
    run: action('revokeTokens'),
  },
  'users:disable': {
    summary: "disable a user: no more sign-in (password or single sign-on); ends their sessions and revokes their tokens at once",
    flags: { email: EMAIL },
    run: action('disable'),
  },
  'users:enable': {
    summary: 'let a disabled user sign in again (their revoked tokens stay revoked)',
    flags: { email: EMAIL },
    run: action('enable'),
  },
  'users:list': {
    summary: 'list users, one JSON object per line: how each signs in (password, sso), whether disabled, token count (no secrets)',
    run: action('listUsers'),
  },
  'users:delete': {
    summary: "expire the user's active pushes, remove the user and their tokens",
    flags: { email: EMAIL },
    run: action('deleteUser'),
  },
  'users:reset-2fa': {
    summary: "turn off a person's two-factor authentication (for one who lost both their app and their recovery codes); they set it up again after signing in",
    flags: { email: EMAIL },
    run: action('resetTwoFactor'),
  },
};
