import type { Response } from 'express';
import type { TrailEntry } from './audit-trail';

export const EXPORT_FORMATS = ['csv', 'jsonl'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** What an export's field holds. */
type FieldValue = string | number | Record<string, unknown> | null | undefined;

/** The exports' columns, in order: the CSV's header, and the keys of each JSON line. */
export const EXPORT_FIELDS = ['id', 'at', 'source', 'kind', 'person', 'push_id', 'push_token_start', 'request_id', 'request_token_start', 'administrator', 'ip', 'user_agent', 'referrer', 'detail'] as const satisfies readonly (keyof TrailEntry)[];

/**
 * A CSV field: quoted when it holds a comma, quote or line break; a text that a spreadsheet would
 * take for a formula (= + - @, a tab or carriage return first) gets a leading apostrophe, so an
 * attacker's User-Agent cannot run in the administrator's spreadsheet.
 */
export function csvField(value: FieldValue): string {
  if (value === null || value === undefined) return '';
  let text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export const csvLine = (entry: TrailEntry): string => `${EXPORT_FIELDS.map((field) => csvField(entry[field])).join(',')}\r\n`;
export const jsonLine = (entry: TrailEntry): string => `${JSON.stringify(Object.fromEntries(EXPORT_FIELDS.map((field) => [field, entry[field]])))}\n`;

/**
 * Until the socket takes more (or the client went away). Both listeners go once either fires:
 * a race of events.once() would leave the loser's listener behind on every wait, which over a
 * million entries is a leak.
 */
function drained(response: Response): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      response.off('drain', done);
      response.off('close', done);
      resolve();
    };
    response.on('drain', done);
    response.on('close', done);
  });
}

/**
 * Streams an export: each page of the log is written as it is read, waiting for the client
 * whenever the socket's buffer is full, so memory stays flat whatever the log's size.
 */
export async function streamExport(response: Response, format: ExportFormat, pages: AsyncIterable<TrailEntry[]>, stamp: string): Promise<void> {
  response.status(200);
  response.setHeader('Content-Type', format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8');
  response.setHeader('Content-Disposition', `attachment; filename="audit-${stamp}.${format}"`);
  response.setHeader('Cache-Control', 'no-store');
  if (format === 'csv') response.write(`${EXPORT_FIELDS.join(',')}\r\n`);
  const line = format === 'csv' ? csvLine : jsonLine;
  try {
    for await (const entries of pages) {
      if (response.destroyed) return;
      if (!response.write(entries.map(line).join(''))) await drained(response);
    }
  } catch (error) {
    // Headers are sent: a failure half-way can only cut the download short, never pass for its end.
    response.destroy();
    throw error;
  }
  response.end();
}
