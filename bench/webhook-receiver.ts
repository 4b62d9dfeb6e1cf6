import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Where the retrieve-webhook scenario's endpoint points: a node:http server in the bench process that answers 204 and counts. */
export interface BenchReceiver {
  url: string;
  /** Deliveries received so far. */
  received(): number;
  close(): Promise<void>;
}

export async function startBenchReceiver(): Promise<BenchReceiver> {
  let received = 0;
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      received++;
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/bench-webhook`,
    received: () => received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
