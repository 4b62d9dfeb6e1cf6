import type { FileResult } from './files';
import type { Engine, Target } from './options';
import type { PrefillResult } from './prefill';
import type { Load, Measurement } from './scenarios';

export interface ResultRow {
  engine: Engine;
  scenario: Load;
  /** The databases held the prefill (bench/prefill.ts) rather than starting empty. */
  prefilled: boolean;
  service?: Measurement;
  floor?: Measurement;
  express?: Measurement;
  nest?: Measurement;
  /** service req/s ÷ floor req/s. */
  ratio?: number;
  /** service req/s ÷ Express floor req/s. */
  expressRatio?: number;
}

/** How one server's database was prefilled. */
export interface PrefillSummary extends Omit<PrefillResult, 'fixture'> {
  engine: Engine;
  target: Target;
  /** Loaded row by row, or a copy of another target's loaded database (SQLite file, PostgreSQL template). */
  method: 'loaded' | 'copied';
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

/** What the service's stack adds to a request's CPU over the same handlers on bare Express. */
const overhead = (row: ResultRow) =>
  row.service && row.express ? int(row.service.cpuMicrosPerRequest - row.express.cpuMicrosPerRequest) : '-';

/** The service's p99 latency over the Express floor's, in the same run. */
const p99Ratio = (row: ResultRow) =>
  row.service && row.express ? `${(row.service.latencyMs.p99 / row.express.latencyMs.p99).toFixed(2)}x` : '-';

/** A prefilled row's service throughput against the same scenario's on the empty databases of the run. */
function versusEmpty(row: ResultRow, rows: ResultRow[]): string {
  const empty = rows.find((other) => !other.prefilled && other.engine === row.engine && other.scenario === row.scenario);
  return row.prefilled && row.service && empty?.service ? percent(row.service.requestsPerSecond / empty.service.requestsPerSecond) : '-';
}

/**
 * One Markdown table: each engine and scenario on a row, the service and the floor side by side,
 * then the Express floor's throughput and CPU, the service's CPU overhead and p99 over it, and the
 * Nest floor's throughput and CPU (what of that overhead is Nest's own); prefilled rows say how
 * the service's throughput compares with the empty databases'.
 */
export function formatTable(rows: ResultRow[]): string {
  const header = [
    'database',
    'scenario',
    'data',
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
    'overhead µs/req',
    'p99 / Express p99',
    'Nest floor req/s',
    'CPU µs/req',
    'service req/s vs empty',
  ];
  const body = rows.map((row) => [
    ENGINE_LABEL[row.engine],
    row.scenario,
    row.prefilled ? PREFILLED_LABEL : 'empty',
    ...cells(row.service),
    ...cells(row.floor),
    percent(row.ratio),
    ...cells(row.express).filter((_, i) => i === 0 || i === 5),
    percent(row.expressRatio),
    overhead(row),
    p99Ratio(row),
    ...cells(row.nest).filter((_, i) => i === 0 || i === 5),
    versusEmpty(row, rows),
  ]);
  return markdown(header, body, 3);
}

const PREFILLED_LABEL = '1M pushes';

/** The prefill's durations for the caption, e.g. "SQLite 22 s (service; express copied in 1 s)". */
export function formatPrefill(summaries: PrefillSummary[]): string {
  const engines = [...new Set(summaries.map((s) => s.engine))];
  const parts = engines.map((engine) => {
    const own = summaries.filter((s) => s.engine === engine);
    const loaded = own.filter((s) => s.method === 'loaded').map((s) => `${s.target} ${Math.round(s.seconds)} s`);
    const copied = own.filter((s) => s.method === 'copied').map((s) => `${s.target} copied in ${s.seconds.toFixed(1)} s`);
    return `${ENGINE_LABEL[engine]} ${[...loaded, ...copied].join(', ')}`;
  });
  const first = summaries[0];
  return (
    `${PREFILLED_LABEL}: ${first.pushes.toLocaleString('en-US')} pushes and ${first.auditEntries.toLocaleString('en-US')} audit entries ` +
    `written by multi-row INSERTs before each server started (bench/prefill.ts), in ${parts.join('; ')}`
  );
}

/** `text` text columns on the left, the figures right-aligned. */
function markdown(header: string[], body: string[][], text = 2): string {
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => r[i].length)));
  const line = (cols: string[]) => `| ${cols.map((c, i) => (i < text ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (i < text ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`;
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
