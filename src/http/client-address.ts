import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';

/** The peer address of a request served by @hono/node-server; 'unknown' without a socket. */
export function clientAddress(c: Context): string {
  return (
    (c.env as { incoming?: IncomingMessage } | undefined)?.incoming?.socket.remoteAddress ??
    'unknown'
  );
}
