import type { Server } from 'node:http';

/**
 * Stops accepting connections and resolves once the requests in flight have finished (idle
 * keep-alive connections are closed at once). After `timeoutMs` the connections still open are
 * closed, and it resolves false.
 */
export function closeServer(server: Server, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    let finishedInTime = true;
    const deadline = setTimeout(() => {
      finishedInTime = false;
      server.closeAllConnections();
    }, timeoutMs);
    server.close(() => {
      clearTimeout(deadline);
      resolve(finishedInTime);
    });
    server.closeIdleConnections();
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
