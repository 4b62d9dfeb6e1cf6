import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * Webhook receivers that never answer: a TCP server on 127.0.0.1 that accepts every connection
 * and then neither reads nor writes, as a hung receiver (or one an attacker points at a tarpit)
 * does. Each attempt waits for the sender's deadline. `url(path)` gives as many endpoints as paths.
 */
export interface SilentEndpoint {
  url(path: string): string;
  /** Connections held open now, and the most ever open at once. */
  open(): number;
  maxOpen(): number;
  /** All connections so far. */
  accepted(): number;
  /** Drops every connection (the senders' attempts fail at once) and stops listening. */
  close(): Promise<void>;
}

export async function startSilentEndpoint(): Promise<SilentEndpoint> {
  const sockets = new Set<Socket>();
  let maxOpen = 0;
  let accepted = 0;
  const server = createServer((socket) => {
    accepted++;
    sockets.add(socket);
    maxOpen = Math.max(maxOpen, sockets.size);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    socket.pause();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}/${path}`,
    open: () => sockets.size,
    maxOpen: () => maxOpen,
    accepted: () => accepted,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
