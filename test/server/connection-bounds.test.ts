import { request } from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { database, describeDb } from '../helpers/app.js';
import { type ServerProcess, startServer } from '../helpers/server.js';

/** The address that holds connections open; every test runs on loopback. */
const HOLDER = '127.0.0.1';
/** Another address of this machine (the whole of 127.0.0.0/8 is local on Linux). */
const OTHER = '127.0.0.2';

/** A request line and headers that never end: the server waits for the blank line. */
const UNFINISHED = 'GET /health/live HTTP/1.1\r\nHost: x\r\n';

/** A WebSocket upgrade after which the client sends nothing, not even its `connection_init`. */
const SILENT_UPGRADE =
  'GET /graphql HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
  'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n' +
  'Sec-WebSocket-Protocol: graphql-transport-ws\r\n\r\n';

interface Connection {
  readonly socket: net.Socket;
  /** Everything the server sent so far. */
  received(): Buffer;
  readonly isClosed: () => boolean;
  /** Resolves once the connection is closed (by the server, or by a reset). */
  readonly closed: Promise<void>;
}

/** A TCP connection to the server from `from`; `data` is sent once connected, nothing after. */
function connect(server: ServerProcess, from: string, data: string): Promise<Connection> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port), localAddress: from });
    const chunks: Buffer[] = [];
    let isClosed = false;
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    // A refused connection may be reset; that it closed is what counts.
    socket.on('error', () => {});
    const closed = new Promise<void>((done) =>
      socket.once('close', () => {
        isClosed = true;
        done();
      }),
    );
    socket.once('connect', () => {
      socket.write(data);
      resolve({ socket, received: () => Buffer.concat(chunks), isClosed: () => isClosed, closed });
    });
  });
}

/** The HTTP status of the first response in `bytes`. */
const statusOf = (bytes: Buffer) => Number(/^HTTP\/1\.1 (\d{3}) /.exec(bytes.toString())?.[1]);

/** A GET from `from` on a connection of its own: the status, or the error that ended it. */
function getFrom(server: ServerProcess, from: string, path: string): Promise<number | string> {
  return new Promise((resolve) => {
    const get = request(`${server.url}${path}`, { localAddress: from, agent: false }, (answer) => {
      answer.resume();
      answer.on('end', () => resolve(answer.statusCode ?? 0));
    });
    get.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    get.end();
  });
}

/** A graphql-ws connection from `from`, acknowledged (its `connection_init` sent and accepted). */
function openWebSocket(server: ServerProcess, from: string): Promise<WebSocket> {
  const url = `${server.url.replace(/^http/, 'ws')}/graphql`;
  const socket = new WebSocket(url, 'graphql-transport-ws', { localAddress: from });
  return new Promise((resolve, reject) => {
    socket.once('open', () => socket.send(JSON.stringify({ type: 'connection_init' })));
    socket.once('message', (data) =>
      JSON.parse(String(data)).type === 'connection_ack'
        ? resolve(socket)
        : reject(new Error(String(data))),
    );
    socket.once('error', reject);
  });
}

describeDb(
  'the connections one address holds (MAX_CONNECTIONS_PER_CLIENT), on the real server',
  () => {
    let server: ServerProcess;
    beforeAll(async () => {
      // Unfinished requests stay for the whole test: only the cap ends them.
      server = await startServer({ MAX_CONNECTIONS_PER_CLIENT: '20', HEADERS_TIMEOUT_MS: '60000' });
    });
    afterAll(async () => {
      await server?.stop();
    });

    it('refuses the 21st connection of any kind, serves another address meanwhile, and frees the place of a closed one', async () => {
      // Five WebSockets and 25 unfinished requests from one address, one after the other.
      const webSockets = await Promise.all(
        Array.from({ length: 5 }, () => openWebSocket(server, HOLDER)),
      );
      const requests: Connection[] = [];
      for (let i = 0; i < 25; i++) requests.push(await connect(server, HOLDER, UNFINISHED));
      const held = requests.slice(0, 15);
      const refused = requests.slice(15);

      // The ten over the cap are closed without a byte of answer; the others stay open.
      await Promise.all(refused.map((connection) => connection.closed));
      expect(refused.map((connection) => connection.received().length)).toEqual(Array(10).fill(0));
      expect(await getFrom(server, OTHER, '/health/ready')).toBe(200);
      expect(held.filter((connection) => connection.isClosed())).toEqual([]);

      // Each held request, finished now, is answered.
      for (const connection of held) connection.socket.write('Connection: close\r\n\r\n');
      await Promise.all(held.map((connection) => connection.closed));
      expect(held.map((connection) => statusOf(connection.received()))).toEqual(
        Array(15).fill(200),
      );

      // The server closed those 15 (Connection: close): their places are the address's again.
      const again: Connection[] = [];
      for (let i = 0; i < 16; i++) again.push(await connect(server, HOLDER, UNFINISHED));
      await again[15]?.closed;
      for (const connection of again.slice(0, 15))
        connection.socket.write('Connection: close\r\n\r\n');
      await Promise.all(again.map((connection) => connection.closed));
      expect(again.map((connection) => statusOf(connection.received()))).toEqual([
        ...Array(15).fill(200),
        Number.NaN,
      ]);
      for (const socket of webSockets) socket.terminate();
    });

    it('destroys the socket of a WebSocket whose connection_init never comes', async () => {
      const silent = await connect(server, HOLDER, SILENT_UPGRADE);
      // graphql-ws closes it with 4408 after 3 s; a client that does not answer that close would
      // keep its socket for ws's 30 s: the server destroys it a second later (the test's bound).
      await silent.closed;
      const received = silent.received();
      expect(statusOf(received)).toBe(101);
      const frame = received.subarray(received.indexOf('\r\n\r\n') + 4);
      expect({ opcode: frame[0], code: frame.readUInt16BE(2) }).toEqual({
        opcode: 0x88,
        code: 4408,
      });
    }, 20_000);
  },
);

describeDb('one address under a 1,024 open-file limit, on the real server', () => {
  let server: ServerProcess;
  beforeAll(async () => {
    // A common service default; unfinished requests stay for the whole test.
    server = await startServer({ HEADERS_TIMEOUT_MS: '60000' }, { openFileLimit: 1024 });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('cannot take every descriptor: 1,100 silent connections leave another address served', async () => {
    // Unfinished requests and silent WebSockets alike, a hundred at a time.
    const connections: Connection[] = [];
    for (let batch = 0; batch < 11; batch++) {
      connections.push(
        ...(await Promise.all(
          Array.from({ length: 100 }, (_, i) =>
            connect(server, HOLDER, i % 2 === 0 ? UNFINISHED : SILENT_UPGRADE),
          ),
        )),
      );
    }
    try {
      expect(await getFrom(server, OTHER, '/health/ready')).toBe(200);
      await vi.waitFor(
        () => expect(connections.filter((c) => !c.isClosed()).length).toBeLessThanOrEqual(256),
        { timeout: 10_000 },
      );
      // The default cap leaves room under this limit: the start had nothing to say about it.
      expect(server.logs.filter((line) => /open-file limit/.test(line.msg))).toEqual([]);
    } finally {
      for (const connection of connections) connection.socket.destroy();
    }
  });
});

describeDb('the open-file limit at the start, on the real server', () => {
  it('says in one line when the limit is below what the connection cap needs', async () => {
    // 400 files cannot hold one address at the default cap (256) and as many for the others.
    const server = await startServer({}, { openFileLimit: 400 });
    try {
      const warning = await server.waitForLog((line) => /open-file limit/.test(line.msg));
      expect(warning).toMatchObject({ level: 40 });
      // PostgreSQL's pool (DATABASE_POOL_SIZE, 10 by default) counts; SQLite's files are the process's.
      const pool = database === 'postgresql' ? 10 : 0;
      expect(warning.msg).toBe(
        `the open-file limit (400) is below the ${2 * 256 + pool + 64} files the connection cap ` +
          `needs (2 × MAX_CONNECTIONS_PER_CLIENT 256 + ${pool} database connections + 64 for the ` +
          'process): raise it (ulimit -n, systemd LimitNOFILE=) or lower MAX_CONNECTIONS_PER_CLIENT',
      );
    } finally {
      await server.stop();
    }
  });
});
