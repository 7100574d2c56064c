import type { Server, ServerOptions } from 'node:http';
import type { Socket } from 'node:net';
import { peerAddress } from './client-address.js';
import { ClientCounts } from './client-counts.js';

/**
 * Node's HTTP server options for a request whose line and headers must arrive within
 * `headersTimeoutMs` (then it is answered 503 TIMEOUT, src/http/client-error.ts). Node checks its
 * time limits every `connectionsCheckingInterval` (30 s by default, too coarse for a limit of a
 * few seconds); a connection that sends nothing at all is bound by the same limit.
 */
export function headersTimeoutOptions(headersTimeoutMs: number): ServerOptions {
  return {
    headersTimeout: headersTimeoutMs,
    connectionsCheckingInterval: Math.min(1000, Math.ceil(headersTimeoutMs / 4)),
  };
}

/**
 * Caps the connections one address holds open on `server`, of every kind: unfinished requests,
 * kept-alive ones, streams, WebSockets. A connection over the cap is destroyed as it arrives,
 * before a byte of it is read: an answer in the Error shape would have to keep the socket open
 * until the client read it (closing a socket with unread input resets it, which can discard the
 * answer), and that descriptor is what the cap is there to free. A browser opens six connections
 * per host, far below it; behind a reverse proxy every connection comes from the proxy's address.
 */
export function capConnectionsPerAddress(server: Server, perAddress: number): void {
  const held = new ClientCounts(perAddress);
  server.on('connection', (socket: Socket) => {
    const release = held.take(peerAddress(socket));
    if (release) socket.once('close', release);
    else socket.destroy();
  });
}
