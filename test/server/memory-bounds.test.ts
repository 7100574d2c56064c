import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { sha256Hex } from '../../src/persisted/operations.js';
import { database, databaseAvailable } from '../helpers/app.js';
import { wsUrl } from '../helpers/live.js';
import { type ServerProcess, startServer } from '../helpers/server.js';

/** The resident memory of a process, in MB (Linux). */
const residentMb = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

/**
 * A distinct document of about 90 KB under the token limit: 1,990 fields no type has, so that it
 * parses and then fails validation (the attack that grew the server to 3.3 GB).
 */
function largeDocument(seed: number): string {
  let text = '{';
  for (let field = 0; field < 1990; field++) text += ` f${seed}_${field}${'x'.repeat(36)}`;
  return `${text} }`;
}

/**
 * A distinct document of 2,101 short tokens, one over the limit, or (`syntaxError`) of 2,000 ending in a
 * syntax error: either fails to parse, and its refusal is cached by its text.
 */
function unparsableDocument(seed: number, syntaxError: boolean): string {
  const fields = Array.from({ length: syntaxError ? 1996 : 2099 }, (_, i) => `f${seed}_${i}`);
  return `{ ${fields.join(' ')} ${syntaxError ? '} } }' : '}'}`;
}

/** Runs `send(i)` for i in 0..count with `concurrency` in flight; samples memory meanwhile. */
async function flood(
  count: number,
  concurrency: number,
  send: (i: number) => Promise<void>,
  sample: () => void,
) {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      await send(next++);
      if (next % 50 === 0) sample();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

/** How much a server's resident memory grows while `attack` runs: the peak sampled, minus the start. */
async function growthDuring(server: ServerProcess, attack: (sample: () => void) => Promise<void>) {
  const pid = server.child.pid as number;
  const start = residentMb(pid);
  let peak = start;
  const sample = () => {
    peak = Math.max(peak, residentMb(pid));
  };
  await attack(sample);
  sample();
  // Printed so that a failure elsewhere (CI) says by how much.
  console.info(`resident memory ${start.toFixed(0)} MB → peak ${peak.toFixed(0)} MB`);
  return { start, peak, growth: peak - start };
}

const postJson = async (server: ServerProcess, body: unknown) => {
  const response = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/graphql-response+json',
    },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as unknown };
};

// What this bounds is the GraphQL layer's memory, whatever the database: it runs once, on SQLite.
describe.skipIf(database !== 'sqlite' || !databaseAvailable)(
  'memory under distinct large documents, on the real server',
  () => {
    let server: ServerProcess;
    let manifestDir: string;
    let persistedOnly: ServerProcess;
    let parseErrors: ServerProcess;
    beforeAll(async () => {
      manifestDir = await mkdtemp(join(tmpdir(), 'petstore-manifest-'));
      const known = '{ __typename }';
      const manifest = join(manifestDir, 'manifest.json');
      await writeFile(manifest, JSON.stringify({ [sha256Hex(known)]: known }));
      [server, persistedOnly, parseErrors] = await Promise.all([
        startServer({ SEED: 'false' }),
        startServer({ SEED: 'false', PERSISTED_OPERATIONS_ONLY: manifest }),
        startServer({ SEED: 'false' }),
      ]);
    });
    afterAll(async () => {
      await Promise.all([server?.stop(), persistedOnly?.stop(), parseErrors?.stop()]);
      await rm(manifestDir, { recursive: true, force: true });
    });

    it('grows by at most 150 MB over 1,000 such documents by HTTP and 500 by WebSocket', async () => {
      const { growth } = await growthDuring(server, async (sample) => {
        await flood(
          1000,
          8,
          async (i) => {
            const answer = await postJson(server, { query: largeDocument(i) });
            expect(answer.status).toBe(400);
          },
          sample,
        );

        const socket = new WebSocket(wsUrl(server), 'graphql-transport-ws');
        await new Promise((resolve) => socket.once('open', resolve));
        socket.send(JSON.stringify({ type: 'connection_init' }));
        const answers: { type: string }[] = [];
        socket.on('message', (data) => answers.push(JSON.parse(String(data))));
        // Ten at a time: the server reads a socket's messages in order, its pongs too.
        for (let i = 0; i < 500; i++) {
          socket.send(
            JSON.stringify({
              id: String(i),
              type: 'subscribe',
              payload: { query: `subscription ${largeDocument(10_000 + i)}` },
            }),
          );
          if (i % 10 === 9) {
            while (answers.length < i + 2) await new Promise((resolve) => setTimeout(resolve, 5));
            sample();
          }
        }
        socket.close();
        // The acknowledgement, then one `error` per subscribe.
        expect(answers[0]?.type).toBe('connection_ack');
        expect(answers.slice(1).every((answer) => answer.type === 'error')).toBe(true);
      });
      expect(growth).toBeLessThanOrEqual(150);
    }, 600_000);

    // Each refusal is kept by its text, so that the same text is not parsed again. Kept with the
    // stack it was thrown with, it held the parser's 2,000 tokens: 250 MB for these.
    it('grows by at most 150 MB over 2,400 distinct documents that do not parse', async () => {
      const { growth } = await growthDuring(parseErrors, async (sample) => {
        await flood(
          2400,
          8,
          async (i) => {
            const answer = await postJson(parseErrors, {
              query: unparsableDocument(i, i % 2 === 1),
            });
            expect(answer).toMatchObject({
              status: 400,
              body: {
                errors: [
                  { extensions: { code: i % 2 ? 'GRAPHQL_PARSE_FAILED' : 'QUERY_TOO_COMPLEX' } },
                ],
              },
            });
          },
          sample,
        );
      });
      expect(growth).toBeLessThanOrEqual(150);
    }, 600_000);

    it('grows by at most 150 MB over 1,500 refused batches in persisted-only mode (never parsed)', async () => {
      const { growth } = await growthDuring(persistedOnly, async (sample) => {
        await flood(
          1500,
          8,
          async (i) => {
            const answer = await postJson(persistedOnly, [{ query: largeDocument(i) }]);
            // A batch answers 200 with each operation's result: this one refused.
            expect(answer).toMatchObject({
              status: 200,
              body: [{ errors: [{ extensions: { code: 'PERSISTED_QUERY_ONLY' } }] }],
            });
          },
          sample,
        );
      });
      expect(growth).toBeLessThanOrEqual(150);
    }, 600_000);
  },
);
