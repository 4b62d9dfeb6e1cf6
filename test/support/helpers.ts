import { createHash } from 'node:crypto';
import { createServer } from 'node:net';
import { request } from './http';

/** Small helpers the specs (and bench/, for freePort) share rather than repeat. */

/** A SHA-256 digest in hex: compares a file's bytes with what came back without printing either. */
export const sha256 = (data: string | Buffer | Uint8Array): string => createHash('sha256').update(data).digest('hex');

/** A TCP port on 127.0.0.1 that was free a moment ago (the OS chose it), for a server or a deliberately closed port. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** The kinds of a push's audit log, in the log's order, as its owner reads them through API v2 (the answer checked against openapi.json). */
export async function auditKinds(baseUrl: string, urlToken: string, ownerToken: string): Promise<string[]> {
  const answer = await request<{ logs: { kind: string }[] }>(baseUrl, 'GET', `/api/v2/pushes/${urlToken}/audit`, { headers: { authorization: `Bearer ${ownerToken}` } });
  if (answer.status !== 200) throw new Error(`audit log: ${answer.status} ${answer.text}`);
  return answer.body.logs.map((entry) => entry.kind);
}
