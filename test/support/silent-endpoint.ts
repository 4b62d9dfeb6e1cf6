import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * Webhook receivers that never answer: a TCP server on 127.0.0.1 that accepts every connection
 * and then neither reads nor writes, as a hung receiver (or one an attacker points at a tarpit)
 * does. Each attempt waits for the sender's deadline. `url(path)` gives as many endpoints as paths.
 */
export interface SilentEndpoint {
  url(path: string): string;
  /** Connections held open now. */
  open(): number;
  /**
   * Connections accepted within `ms` of the first. How many attempts were in flight at once, told
   * without a race: a sender's attempt that ends frees its slot before this server sees the close,
   * but no attempt ends before the sender's deadline, so within less than it every connection is
   * one more attempt in flight.
   */
  acceptedWithin(ms: number): number;
  /** Drops every connection (the senders' attempts fail at once) and stops listening. */
  close(): Promise<void>;
}

export async function startSilentEndpoint(): Promise<SilentEndpoint> {
  const sockets = new Set<Socket>();
  const acceptedAt: number[] = [];
  const server = createServer((socket) => {
    acceptedAt.push(performance.now());
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    socket.pause();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}/${path}`,
    open: () => sockets.size,
    acceptedWithin: (ms) => acceptedAt.filter((at) => at - acceptedAt[0] < ms).length,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
