import 'reflect-metadata';
import { Logger, LoggerService } from '@nestjs/common';
import { describeStartupFailure, loadSettings, readProcessEnv, Settings, SettingsError } from '@app/config';
import { parseCommandLine } from './command-line';
import { CommandError } from './commands';

/**
 * Administration CLI, usable on the production image with the server's settings:
 *   node dist/apps/cli/src/main.js <command> [--flag value ...]   (--help lists the commands)
 * Results go to stdout as JSON; errors to stderr, one line each, with a non-zero exit code.
 */
/** stdout carries the command's JSON result only; warnings and errors go to stderr, progress chatter nowhere. */
const toStderr = (message: unknown, context?: string): void => {
  process.stderr.write(`${context ? `[${context}] ` : ''}${String(message)}\n`);
};
/** Contexts whose errors are the failure the handler below reports, once and in words: Nest's report of it, and TypeORM's "Retrying" (it does not retry). */
const REPORTED_AT_EXIT = new Set(['ExceptionHandler', 'TypeOrmModule']);
const stderrLogger: LoggerService = {
  log: () => undefined,
  warn: toStderr,
  error: (message: unknown, ...rest: unknown[]) => {
    const context = rest.at(-1);
    if (typeof context !== 'string' || !REPORTED_AT_EXIT.has(context)) toStderr(message, typeof context === 'string' ? context : undefined);
  },
};

let settings: Settings | undefined;

async function main(argv: string[]): Promise<void> {
  const invocation = parseCommandLine(argv);
  if ('help' in invocation) {
    process.stdout.write(`${invocation.help}\n`);
    return;
  }
  settings = loadSettings(readProcessEnv());
  await invocation.command.run(invocation.flags, settings);
}

Logger.overrideLogger(stderrLogger);
main(process.argv.slice(2)).then(
  () => process.exit(0),
  (error: unknown) => {
    const mistake = error instanceof CommandError || error instanceof SettingsError;
    process.stderr.write(`${mistake ? (error as Error).message : describeStartupFailure(error, settings)}\n`);
    process.exit(mistake ? 2 : 1);
  },
);
