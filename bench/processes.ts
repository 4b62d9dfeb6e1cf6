import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, readSync, statSync } from 'node:fs';

/** Progress goes to stderr so that stdout carries only the results table. */
export const progress = (message: string): void => void process.stderr.write(`[bench] ${message}\n`);

/** Runs a command to completion with its output on our stderr; throws on a non-zero exit. */
export async function runCommand(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const child = spawn(command, args, { env, stdio: ['ignore', 2, 2] });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', resolve);
  });
  if (code !== 0) throw new Error(`${command} ${args.join(' ')} exited with ${code}`);
}

export interface ServerProcess {
  name: string;
  url: string;
  pid: number;
  /** The tail of its stderr and of its log file, for failure reports. */
  output(): string;
  /** How it ended, if it has: "code 1", "signal SIGKILL". */
  exitStatus(): string | undefined;
  stop(): Promise<void>;
}

function tailOf(path: string, bytes: number): string {
  try {
    const size = statSync(path).size;
    const fd = openSync(path, 'r');
    const buffer = Buffer.alloc(Math.min(size, bytes));
    readSync(fd, buffer, 0, buffer.length, size - buffer.length);
    closeSync(fd);
    return buffer.toString('utf8');
  } catch {
    return '';
  }
}

const live = new Set<ChildProcess>();

/** Kills whatever is still running (used when the run is interrupted). */
export function killAll(): void {
  for (const child of live) child.kill('SIGKILL');
}

/**
 * Starts a Node server and waits for GET <readyPath> to answer 200. Its stdout (the request log at
 * LOG_LEVEL=info) goes straight to `logFile`: the server formats and writes every line, as in
 * production, while the load generator spends no CPU reading them.
 */
export async function startServer(
  name: string,
  script: string,
  nodeArgs: string[],
  env: NodeJS.ProcessEnv,
  port: number,
  readyPath: string,
  logFile: string,
): Promise<ServerProcess> {
  const log = openSync(logFile, 'w');
  const child = spawn(process.execPath, [...nodeArgs, script], { env, stdio: ['ignore', log, 'pipe'] });
  closeSync(log);
  live.add(child);
  let stderr = '';
  let status: string | undefined;
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-20_000)));
  const output = () => `${stderr}${stderr ? '\n' : ''}log tail:\n${tailOf(logFile, 4000)}`;
  const exited = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      status = signal ? `signal ${signal}` : `code ${code}`;
      resolve();
    }),
  );
  void exited.then(() => live.delete(child));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (status !== undefined) throw new Error(`${name} exited (${status}) during start-up:\n${output()}`);
    try {
      if ((await fetch(url + readyPath)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${name} did not answer within 60 s:\n${output()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    name,
    url,
    pid: child.pid!,
    output,
    exitStatus: () => status,
    stop: async () => {
      if (status !== undefined) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Resident memory of a process in MB, from /proc (Linux): the current value and the lifetime peak. */
function memoryOf(pid: number): { rss: number; hwm: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
  } catch {
    return undefined;
  }
}

const CLOCK_TICKS_PER_SECOND = 100;

/** CPU seconds (user + system) a process has used so far, from /proc/<pid>/stat (Linux). */
function cpuSecondsOf(pid: number): number {
  try {
    // The command name (field 2) may hold spaces; the fields after its closing parenthesis are fixed.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return NaN;
  }
}

/**
 * Watches a server process: RSS sampled every 100 ms (`peak` is the highest sample since the last
 * `reset`) and CPU time used since the last `reset`, which divided by the requests served gives a
 * cost per request that other processes competing for the CPU disturb far less than req/s.
 */
export class ProcessMonitor {
  private cpuAtReset = 0;
  private max = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly pid: number) {
    this.timer = setInterval(() => this.sample(), 100);
    this.timer.unref();
  }

  private sample(): void {
    const rss = memoryOf(this.pid)?.rss;
    if (rss !== undefined && rss > this.max) this.max = rss;
  }

  reset(): void {
    this.max = 0;
    this.cpuAtReset = cpuSecondsOf(this.pid);
    this.sample();
  }

  cpuSeconds(): number {
    return cpuSecondsOf(this.pid) - this.cpuAtReset;
  }

  peak(): number {
    this.sample();
    return this.max;
  }

  /** VmHWM: the kernel's record of the highest RSS over the process's life. */
  lifetimePeak(): number {
    return memoryOf(this.pid)?.hwm ?? NaN;
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
