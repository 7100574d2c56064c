import http from 'node:http';
import net from 'node:net';
import { expect, it } from 'vitest';
import { describeDb } from '../helpers/app.js';
import { startServer } from '../helpers/server.js';

interface Answer {
  status: number | undefined;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * A GraphQL POST whose body is held back, on a keep-alive connection as browsers and proxies use.
 * `started` resolves when the server has read the headers (it answered `100 Continue`), so the
 * request is in flight until `send()`.
 */
function heldRequest(url: string, query: string) {
  const body = JSON.stringify({ query });
  const request = http.request(`${url}/graphql`, {
    method: 'POST',
    agent: new http.Agent({ keepAlive: true }),
    headers: {
      'content-type': 'application/json',
      accept: 'application/graphql-response+json',
      'content-length': Buffer.byteLength(body),
      expect: '100-continue',
    },
  });
  const started = new Promise<void>((resolve) => request.once('continue', resolve));
  const answer = new Promise<Answer>((resolve, reject) => {
    request.once('error', reject);
    request.once('response', (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => {
        text += chunk;
      });
      response.on('end', () =>
        resolve({ status: response.statusCode, headers: response.headers, body: text }),
      );
    });
  });
  // A test that fails early must not leave the rejection unhandled.
  answer.catch(() => {});
  request.flushHeaders();
  return { started, answer, send: () => request.end(body) };
}

/** Opens (and closes) a new TCP connection to the server. */
function connect(url: string) {
  const { hostname, port } = new URL(url);
  return new Promise<void>((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve();
    });
    socket.once('error', reject);
  });
}

describeDb('graceful shutdown of the real server', { timeout: 60_000 }, () => {
  it('on SIGTERM: refuses new connections, finishes the request in flight, closes the database, exits 0', async () => {
    const server = await startServer();
    try {
      const held = heldRequest(server.url, 'query InFlight { categories { name } }');
      await held.started;

      server.child.kill('SIGTERM');
      await server.waitForLog((line) => line.msg.startsWith('shutting down'));
      await expect(connect(server.url)).rejects.toMatchObject({ code: 'ECONNREFUSED' });

      held.send();
      const answer = await held.answer;
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body)).toEqual({
        data: { categories: expect.arrayContaining([{ name: 'Dogs' }]) },
        extensions: { cost: { requestedQueryCost: expect.any(Number), actualQueryCost: 5 } },
      });
      // Asked to close, the client does not hold the shutdown until its keep-alive timeout.
      expect(answer.headers.connection).toBe('close');

      expect(await server.exited).toBe(0);
      const events = server.logs
        .filter((line) => line.msg !== 'request' || line.operation === 'InFlight')
        .map((line) =>
          line.msg === 'request' ? `request ${line.operation} ${line.status}` : line.msg,
        );
      expect(events.slice(-3)).toEqual([
        'shutting down: no new connections; finishing the requests in flight',
        'request InFlight 200',
        'stopped',
      ]);
    } finally {
      await server.stop();
    }
  });

  it('on SIGINT with a request that outlives the deadline: cuts it off and still exits 0', async () => {
    const server = await startServer({ SHUTDOWN_TIMEOUT_MS: '300' });
    try {
      const held = heldRequest(server.url, 'query NeverSent { categories { name } }');
      await held.started;

      server.child.kill('SIGINT');
      await expect(held.answer).rejects.toThrow(/socket hang up|ECONNRESET/);
      expect(await server.exited).toBe(0);
      // Which of these lines reaches the pipe first varies under load (seen once in CI-like
      // runs), so only their presence is asserted here; the order is covered by the SIGTERM test.
      const events = server.logs.map((line) => [line.level, line.msg]);
      expect(events).toEqual(
        expect.arrayContaining([
          [30, 'shutting down: no new connections; finishing the requests in flight'],
          [40, 'requests still in flight at the shutdown deadline were cut off'],
          [30, 'stopped'],
        ]),
      );
      expect(server.logs.find((line) => line.signal)?.signal).toBe('SIGINT');
    } finally {
      await server.stop();
    }
  });
});
