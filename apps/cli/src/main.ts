import 'reflect-metadata';
import { Logger, LoggerService } from '@nestjs/common';
import { loadSettings, readProcessEnv, SettingsError } from '@app/config';
import { checkFlags, COMMANDS, CommandError } from './commands';

/**
 * Administration CLI, usable on the production image with the server's settings:
 *   node dist/apps/cli/src/main.js <command> [--flag value ...]
 * Results go to stdout as JSON; errors to stderr with a non-zero exit code.
 */
/** stdout carries the command's JSON result only; warnings and errors go to stderr, progress chatter nowhere. */
const toStderr = (message: unknown, context?: string): void => {
  process.stderr.write(`${context ? `[${context}] ` : ''}${String(message)}\n`);
};
const stderrLogger: LoggerService = { log: () => undefined, error: toStderr, warn: toStderr };

async function main(argv: string[]): Promise<void> {
  const [name, ...rest] = argv;
  const command = name === undefined ? undefined : COMMANDS[name];
  if (!command) throw new CommandError(`Usage: cli <command> [options]\nCommands:\n${Object.entries(COMMANDS).map(([n, c]) => `  ${n.padEnd(22)} ${c.summary}`).join('\n')}`);
  const flags = parseFlags(rest);
  checkFlags(name, command, flags);
  await command.run(flags, loadSettings(readProcessEnv()));
}

function parseFlags(args: string[]): Map<string, string> {
  const flags = new Map<string, string>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const value = args[i + 1];
    if (!arg.startsWith('--') || value === undefined || value.startsWith('--')) throw new CommandError(`Expected --flag value, got "${arg}".`);
    flags.set(arg.slice(2), value);
    i++;
  }
  return flags;
}

Logger.overrideLogger(stderrLogger);
main(process.argv.slice(2)).then(
  () => process.exit(0),
  (error: unknown) => {
    const known = error instanceof CommandError || error instanceof SettingsError;
    process.stderr.write(`${known ? (error as Error).message : error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(known ? 2 : 1);
  },
);
