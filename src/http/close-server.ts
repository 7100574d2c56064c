import type { Server } from 'node:http';

/** How often a closing server closes the keep-alive connections that have gone idle since. */
const IDLE_CHECK_MS = 100;

/**
 * Stops accepting connections and resolves once the requests in flight have finished. Idle
 * keep-alive connections are closed at once, and so is each one whose last request finishes
 * meanwhile (an event stream ended by the shutdown): Node's `close` closes only those idle at the
 * call, and would leave the others for its keep-alive timeout. After `timeoutMs` the connections
 * still open are closed, and it resolves false.
 */
export function closeServer(server: Server, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    let finishedInTime = true;
    const deadline = setTimeout(() => {
      finishedInTime = false;
      server.closeAllConnections();
    }, timeoutMs);
    const idle = setInterval(() => server.closeIdleConnections(), IDLE_CHECK_MS);
    server.close(() => {
      clearTimeout(deadline);
      clearInterval(idle);
      resolve(finishedInTime);
    });
  });
}

/** Asks the client to close its connection after this response (used while shutting down). */
export function withConnectionClose(response: Response): Response {
  try {
    response.headers.set('Connection', 'close');
    return response;
  } catch {
    const copy = new Response(response.body, response);
    copy.headers.set('Connection', 'close');
    return copy;
  }
}
