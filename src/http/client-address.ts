import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Context } from 'hono';

/**
 * The address a connection comes from: what every per-address bound counts by (the connection
 * cap, the WebSocket upgrade's budget, an anonymous request's budget). 'unknown' once the socket
 * has closed.
 */
export function peerAddress(socket: Socket | undefined): string {
  return socket?.remoteAddress ?? 'unknown';
}

/** The peer address of a request served by @hono/node-server; 'unknown' without a socket. */
export function clientAddress(c: Context): string {
  return peerAddress((c.env as { incoming?: IncomingMessage } | undefined)?.incoming?.socket);
}
