import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  body: string;
  /** False when the receiver held the request without an answer (`hold()`). */
  answered: boolean;
}

/** A webhook receiver on 127.0.0.1: records what arrives and answers `status` (settable: down, redirecting, ...). */
export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  /** The status the next requests get; with `location`, a redirect. */
  answer(status: number, location?: string): void;
  /** The next requests get no answer at all (until `answer`), as from a receiver that hangs: the sender's attempt stays in flight. */
  hold(): void;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const held = new Set<ServerResponse>();
  let status: number | 'hold' = 204;
  let location: string | undefined;
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), answered: status !== 'hold' });
      if (status === 'hold') {
        held.add(response);
        return;
      }
      response.writeHead(status, location ? { location } : {});
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    answer: (next, redirect) => {
      status = next;
      location = redirect;
    },
    hold: () => {
      status = 'hold';
    },
    close: () => {
      for (const response of held) response.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
