import { ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './helpers';

const ROOT = join(__dirname, '..', '..');
export const SERVER_MAIN = join(ROOT, 'dist', 'apps', 'api', 'src', 'main.js');
export const CLI_MAIN = join(ROOT, 'dist', 'apps', 'cli', 'src', 'main.js');

export function requireBuild(): void {
  if (!existsSync(SERVER_MAIN) || !existsSync(CLI_MAIN)) throw new Error('Build first: npm run build (npm test does it).');
}

/** The environment a child process gets: only what the test says, plus PATH. */
function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  // Every request comes from 127.0.0.1: rate-limit tests set their own limits.
  return { PATH: process.env.PATH, NODE_ENV: 'test', PWP__THROTTLING__MINUTE: '1000000', PWP__THROTTLING__SECOND: '1000000', ...env };
}

/** A child's working directory: an empty one unless the test gives its own, so a .env in the checkout never reaches it. */
const childCwd = (cwd: string | undefined): string => cwd ?? mkdtempSync(join(tmpdir(), 'pwpush-cwd-'));

export interface ServerProcess {
  url: string;
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** What `pattern` first matches in the server's output, waiting for it (a line written at start-up may reach the pipe after the first answer). */
export async function waitForOutput(server: ServerProcess, pattern: RegExp, timeoutMs = 5000): Promise<RegExpExecArray> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const match = pattern.exec(server.output());
    if (match) return match;
    if (Date.now() > deadline) throw new Error(`the server's output has no ${String(pattern)} within ${timeoutMs} ms:\n${server.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Starts the built server and waits until it answers; fails with its output if it exits first. */
export async function startServer(env: Record<string, string>, options: { timeoutMs?: number; cwd?: string } = {}): Promise<ServerProcess> {
  requireBuild();
  const { timeoutMs = 60_000, cwd } = options;
  const port = await freePort();
  const child = spawn(process.execPath, [SERVER_MAIN], { env: childEnv({ PORT: String(port), ...env }), cwd: childCwd(cwd), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}:\n${output}`);
    try {
      if ((await fetch(`${url}/api/v2/version`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server did not start within ${timeoutMs} ms:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { url, output: () => output, stop: (signal = 'SIGTERM') => stopProcess(child, exited, signal) };
}

async function stopProcess(child: ChildProcess, exited: Promise<number | null>, signal: NodeJS.Signals): Promise<number | null> {
  if (child.exitCode === null) child.kill(signal);
  return exited;
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a built entry point to completion (a server expected to refuse to start, or the CLI). */
export async function runNode(
  script: string,
  args: string[],
  env: Record<string, string>,
  options: { input?: string; timeoutMs?: number; cwd?: string } = {},
): Promise<RunResult> {
  requireBuild();
  const { input, timeoutMs = 60_000, cwd } = options;
  const child = spawn(process.execPath, [script, ...args], { env: childEnv(env), cwd: childCwd(cwd), stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
  child.stdin?.end(input);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  clearTimeout(timer);
  return { code, stdout, stderr };
}

/**
 * Runs the server expecting it to refuse to start, as it must: one line on stderr, a JSON log line
 * (as every log line is) at level fatal saying why and which setting to change; nothing on stdout;
 * exit code 1. Returns its msg.
 */
export async function failedStart(env: Record<string, string>, cwd?: string): Promise<string> {
  const { code, stdout, stderr } = await runNode(SERVER_MAIN, [], env, { cwd });
  expect({ code, stdout }).toEqual({ code: 1, stdout: '' });
  expect(stderr).not.toContain('\x1b');
  expect(stderr).not.toMatch(/^\s+at /m);
  expect(stderr).toMatch(/^[^\n]+\n$/);
  const line = JSON.parse(stderr) as { level: number; context: string; msg: string };
  expect(line).toMatchObject({ level: 60, context: 'Startup' });
  return line.msg;
}
