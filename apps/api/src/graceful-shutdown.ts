import type { Server, ServerResponse } from 'node:http';

/**
 * Lets a server drain without waiting for idle keep-alive connections to time out: once
 * draining, every response still to be sent says `Connection: close`, so each connection
 * closes right after its last response and server.close() completes as soon as the in-flight
 * requests are done.
 */
export function closeConnectionsWhenDraining(server: Server): { drain: () => void } {
  const open = new Set<ServerResponse>();
  let draining = false;
  server.on('request', (_request, response: ServerResponse) => {
    if (draining) {
      response.setHeader('Connection', 'close');
      return;
    }
    open.add(response);
    response.once('close', () => open.delete(response));
  });
  return {
    drain: () => {
      draining = true;
      for (const response of open) if (!response.headersSent) response.setHeader('Connection', 'close');
      server.closeIdleConnections();
    },
  };
}
