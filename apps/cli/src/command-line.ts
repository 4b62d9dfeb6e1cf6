import { parseArgs } from 'node:util';
import { Command, CommandError, COMMANDS, Flag, FlagValues } from './commands';

const PROGRAM = 'cli';
const HELP_FLAGS = new Set(['--help', '-h', 'help']);

/** What the command line asks for: a help text to print, or a command to run with its flags. */
export type Invocation = { help: string } | { name: string; command: Command; flags: FlagValues };

/**
 * Reads `<command> [--flag value | --flag=value ...]` with node:util's parseArgs, stricter than it
 * is by itself: a flag given twice is refused rather than the last one silently winning, and the
 * messages say what to change. Mistakes throw a CommandError.
 */
export function parseCommandLine(argv: string[]): Invocation {
  const [name, ...rest] = argv;
  if (name !== undefined && HELP_FLAGS.has(name)) return { help: overview() };
  const command = name === undefined ? undefined : Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (name === undefined || command === undefined) {
    throw new CommandError(`${name === undefined ? 'No command given.' : `Unknown command "${name}".`}\n${overview()}`);
  }
  const declared = command.flags ?? {};
  const parsed = parse(name, rest, declared);
  if (parsed.values.help) return { help: commandHelp(name, command) };
  const seen = new Set<string>();
  for (const token of parsed.tokens) {
    if (token.kind !== 'option') continue;
    if (seen.has(token.name)) throw new CommandError(`${name}: --${token.name} is given more than once; give it once.`);
    seen.add(token.name);
  }
  const flags = Object.fromEntries(Object.entries(parsed.values).map(([flag, value]) => [flag, value === true ? 'true' : value])) as FlagValues;
  for (const [flag, { required }] of Object.entries(declared)) {
    if (required && !flags[flag]) throw new CommandError(`${name} needs --${flag}.\nRun "${PROGRAM} ${name} --help" for its options.`);
  }
  return { name, command, flags };
}

function parse(name: string, args: string[], flags: Record<string, Flag>) {
  const options = Object.fromEntries(Object.entries(flags).map(([flag, { switch: isSwitch }]) => [flag, { type: isSwitch ? ('boolean' as const) : ('string' as const) }]));
  try {
    return parseArgs({ args, options: { ...options, help: { type: 'boolean', short: 'h' } }, strict: true, tokens: true });
  } catch (error) {
    throw new CommandError(`${explain(name, error)}\nRun "${PROGRAM} ${name} --help" for its options.`);
  }
}

/** parseArgs's messages, in this CLI's words (its own suggest quoting arguments after "--", which no command takes). */
function explain(name: string, error: unknown): string {
  const { code, message } = error as { code?: string; message: string };
  const quoted = /'([^']*)'/.exec(message)?.[1] ?? '';
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return `${name} does not take ${quoted}.`;
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') return `${name}: unexpected argument "${quoted}" (a value goes after its flag: --flag value or --flag=value).`;
  if (code !== 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') return `${name}: ${message.split('\n', 1)[0]}`;
  const flag = quoted.replace(/ <value>$/, '').replace(/^-h, /, '');
  return message.includes('does not take an argument') ? `${name}: ${flag} takes no value.` : `${name}: ${flag} needs a value (one that starts with a dash goes as ${flag}=-...).`;
}

function overview(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length)) + 2;
  return [
    `Usage: ${PROGRAM} <command> [options]`,
    '',
    "Administers the service with the server's settings (DATABASE_URL, PWPUSH_MASTER_KEY, ..., from the environment or .env).",
    'Results go to standard output as JSON; mistakes to standard error, with exit code 2.',
    '',
    'Commands:',
    ...Object.entries(COMMANDS).map(([name, command]) => `  ${name.padEnd(width)}${command.summary}`),
    '',
    `Run "${PROGRAM} <command> --help" for a command's options.`,
  ].join('\n');
}

function commandHelp(name: string, command: Command): string {
  const flags = Object.entries(command.flags ?? {});
  const written = (flag: string, value: string) => (value ? `--${flag} ${value}` : `--${flag}`);
  const usage = flags.map(([flag, { value, required }]) => (required ? written(flag, value) : `[${written(flag, value)}]`));
  const rows = [...flags.map(([flag, { value, doc, required }]) => [written(flag, value), `${doc}${required ? ' (required)' : ''}`]), ['-h, --help', 'show this help']];
  const width = Math.max(...rows.map(([left]) => left.length)) + 2;
  return [
    `Usage: ${PROGRAM} ${[name, ...usage].join(' ')}`,
    '',
    `${command.summary[0].toUpperCase()}${command.summary.slice(1)}.`,
    '',
    'Options:',
    ...rows.map(([left, right]) => `  ${left.padEnd(width)}${right}`),
  ].join('\n');
}
