import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the recording server received. */
export interface Recorded {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface RecordingServer {
  /** `http://127.0.0.1:<port>/purge`: where the purges go. */
  readonly url: string;
  /** The requests answered 2xx, in order. */
  readonly received: Recorded[];
  /** Every request, answered 2xx or not. */
  attempts: number;
  /** What it answers from now on (a CDN that fails answers 503). */
  status: number;
  /** Resolves once `predicate` holds for the requests received so far. */
  until(predicate: (received: readonly Recorded[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * A local HTTP server standing for a CDN's purge endpoint: it records every request and answers
 * `status` (200 unless told otherwise). `port` reuses a port (a CDN that comes back where it was).
 */
export async function startRecordingServer(port = 0): Promise<RecordingServer> {
  const received: Recorded[] = [];
  const waiters = new Set<() => void>();
  const recorder: RecordingServer = {
    url: '',
    received,
    attempts: 0,
    status: 200,
    until(predicate, timeoutMs = 10_000) {
      if (predicate(received)) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!predicate(received)) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`not received in ${timeoutMs} ms: ${JSON.stringify(received)}`));
        }, timeoutMs);
        waiters.add(check);
      });
    },
    close: () => close(server),
  };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const status = recorder.status;
      recorder.attempts++;
      if (status < 300)
        received.push({
          method: request.method ?? '',
          url: request.url ?? '',
          headers: request.headers,
          body: Buffer.concat(chunks).toString(),
        });
      response.writeHead(status, { 'content-type': 'application/json' }).end('{}');
      for (const waiter of [...waiters]) waiter();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const { port: bound } = server.address() as AddressInfo;
  (recorder as { url: string }).url = `http://127.0.0.1:${bound}/purge`;
  return recorder;
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
