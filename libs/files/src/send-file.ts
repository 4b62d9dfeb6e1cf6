import { create as contentDisposition } from 'content-disposition';
import type { Request, Response } from 'express';
import { once } from 'node:events';
import parseRange from 'range-parser';
import type { ByteRange } from './blob-store';
import type { StoredFile } from './file-attachments.service';

/**
 * Answers a download: the whole file (200) or one byte range (206), so that browsers and download
 * managers can resume; a range past the end is a 416. Always an attachment, never rendered.
 * Headers are committed only once the first bytes decrypted, so a file that fails its integrity
 * check from the start is a JSON error; one that fails later is cut off (the client sees a short
 * body against Content-Length), never given a byte that did not check. A HEAD gets the headers
 * alone, and nothing is read.
 */
export async function sendFile(request: Request, response: Response, file: StoredFile): Promise<void> {
  const range = requestedRange(request, file);
  response.setHeader('Accept-Ranges', 'bytes');
  response.setHeader('ETag', file.etag);
  if (range === 'unsatisfiable') {
    response.status(416).setHeader('Content-Range', `bytes */${file.size}`);
    response.json({ error: 'Range not satisfiable.' });
    return;
  }
  if (request.method === 'HEAD') return void setFileHeaders(response, file, range).end();
  const body = (await file.read(range))[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const first = await body.next();
  setFileHeaders(response, file, range);
  try {
    for (let next = first; !next.done; next = await body.next()) {
      if (response.destroyed) return void (await body.return?.());
      if (!response.write(next.value)) await Promise.race([once(response, 'drain'), once(response, 'close')]);
    }
    response.end();
  } catch {
    // Headers are out: all that is left is to cut the body short so the client sees the failure.
    response.destroy();
  }
}

/** What a download's answer says of its body: also all that a HEAD gets, without reading a byte. */
function setFileHeaders(response: Response, file: StoredFile, range: ByteRange | undefined): Response {
  response.status(range ? 206 : 200);
  response.setHeader('Content-Type', file.contentType);
  response.setHeader('Content-Disposition', contentDisposition(file.filename, { type: 'attachment' }));
  response.setHeader('Content-Length', String(range ? range.end - range.start + 1 : file.size));
  if (range) response.setHeader('Content-Range', `bytes ${range.start}-${range.end}/${file.size}`);
  return response;
}

/** One satisfiable range, unless the request asks for none, several, or an If-Range that no longer holds. */
function requestedRange(request: Request, file: StoredFile): ByteRange | 'unsatisfiable' | undefined {
  const header = request.headers.range;
  if (header === undefined) return undefined;
  const ifRange = request.headers['if-range'];
  if (ifRange !== undefined && ifRange !== file.etag) return undefined;
  const ranges = parseRange(file.size, header);
  if (ranges === -1) return 'unsatisfiable';
  // Malformed (-2), other units, or several ranges: the whole file, as RFC 9110 allows.
  if (ranges === -2 || ranges.type !== 'bytes' || ranges.length !== 1) return undefined;
  return { start: ranges[0].start, end: ranges[0].end };
}
