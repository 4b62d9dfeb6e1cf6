import type { FileResult } from './files';
import type { Engine, Scenario, Target } from './options';
import type { Measurement } from './scenarios';

export interface ResultRow {
  engine: Engine;
  scenario: Scenario;
  service?: Measurement;
  floor?: Measurement;
  express?: Measurement;
  /** service req/s ÷ floor req/s. */
  ratio?: number;
  /** service req/s ÷ Express floor req/s. */
  expressRatio?: number;
}

export interface ServerSummary {
  engine: Engine;
  target: Target;
  /** VmHWM at the end of the engine's run: the highest RSS over the server's whole life. */
  lifetimePeakRssMb: number;
}

const ENGINE_LABEL: Record<Engine, string> = { sqlite: 'SQLite', mysql: 'MariaDB', postgres: 'PostgreSQL' };

const int = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '-');
const ms = (n: number) => (Number.isFinite(n) ? (n < 10 ? n.toFixed(1) : Math.round(n).toString()) : '-');

function cells(m: Measurement | undefined): string[] {
  if (!m) return ['-', '-', '-', '-', '-', '-'];
  return [int(m.requestsPerSecond), ms(m.latencyMs.p50), ms(m.latencyMs.p99), int(m.errors), int(m.peakRssMb), int(m.cpuMicrosPerRequest)];
}

const percent = (ratio: number | undefined) => (ratio === undefined ? '-' : `${Math.round(ratio * 100)}%`);

/**
 * One Markdown table: each engine and scenario on a row, the service and the floor side by side,
 * then the Express floor's throughput and CPU.
 */
export function formatTable(rows: ResultRow[]): string {
  const header = [
    'database',
    'scenario',
    'service req/s',
    'p50 ms',
    'p99 ms',
    'errors',
    'RSS MB',
    'CPU µs/req',
    'floor req/s',
    'p50 ms',
    'p99 ms',
    'errors',
    'RSS MB',
    'CPU µs/req',
    'service/floor',
    'Express floor req/s',
    'CPU µs/req',
    'service/Express floor',
  ];
  const body = rows.map((row) => [
    ENGINE_LABEL[row.engine],
    row.scenario,
    ...cells(row.service),
    ...cells(row.floor),
    percent(row.ratio),
    ...cells(row.express).filter((_, i) => i === 0 || i === 5),
    percent(row.expressRatio),
  ]);
  return markdown(header, body);
}

/** Two text columns on the left, the figures right-aligned. */
function markdown(header: string[], body: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => r[i].length)));
  const line = (cols: string[]) => `| ${cols.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (i < 2 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`;
  return [line(header), rule, ...body.map(line)].join('\n');
}

const fixed = (n: number, digits: number) => (Number.isFinite(n) ? n.toFixed(digits) : '-');

/** The file scenarios: MiB/s through the service and by a plain stream copy, the service's memory and CPU. */
export function formatFileTable(rows: FileResult[]): string {
  const header = [
    'database',
    'scenario',
    'service MiB/s',
    'median s',
    'floor MiB/s',
    'median s',
    'service/floor',
    'RSS MB at start',
    'peak RSS MB',
    'CPU s/GiB',
  ];
  const body = rows.map((row) => [
    ENGINE_LABEL[row.engine],
    row.scenario,
    int(row.service.mibPerSecond),
    fixed(row.service.medianSeconds, 2),
    int(row.floor.mibPerSecond),
    fixed(row.floor.medianSeconds, 2),
    percent(row.ratio),
    int(row.service.rssAtStartMb),
    int(row.service.peakRssMb),
    fixed(row.service.cpuSecondsPerGib, 1),
  ]);
  return markdown(header, body);
}
