import 'reflect-metadata';
import { describeStartupFailure, loadSettings, readProcessEnv, Settings, SettingsError } from '@app/config';
import { parseCommandLine } from './command-line';
import { CommandError } from './commands';

/**
 * Administration CLI, usable on the production image with the server's settings:
 *   node dist/apps/cli/src/main.js <command> [--flag value ...]   (--help lists the commands)
 * Results go to stdout as JSON; errors to stderr, one line each, with a non-zero exit code.
 */
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

main(process.argv.slice(2)).then(
  () => process.exit(0),
  (error: unknown) => {
    const mistake = error instanceof CommandError || error instanceof SettingsError;
    process.stderr.write(`${mistake ? (error as Error).message : describeStartupFailure(error, settings)}\n`);
    process.exit(mistake ? 2 : 1);
  },
);
