import { describe, expect, it } from 'vitest';
import { database } from '../helpers/app.js';
import { runNode } from '../helpers/process.js';

/**
 * What src/runtime/adapter-response.ts relies on, in a process of its own (a test process may
 * have served already): @hono/node-server's `serve` puts its own `Response` in place of the
 * global one, which the app's answers are then made of, and Yoga's default `Response` is not the
 * global one (else the piece would change nothing).
 */
const probe = `
const native = globalThis.Response;
const { serve } = await import('@hono/node-server');
const { createSchema, createYoga } = await import('graphql-yoga');
const { adapterResponse } = await import('./src/runtime/adapter-response.ts');
let answered;
const server = serve({ fetch: () => (answered = new adapterResponse('ok')), port: 0, hostname: '127.0.0.1' }, async (info) => {
  const text = await (await fetch('http://127.0.0.1:' + info.port)).text();
  const yoga = createYoga({ schema: createSchema({ typeDefs: 'type Query { a: Int }' }) });
  console.log(JSON.stringify({
    text,
    replaced: globalThis.Response !== native,
    answeredWithTheAdapters: answered.constructor === globalThis.Response,
    yogaDefaultIsGlobal: yoga.fetchAPI.Response === globalThis.Response || yoga.fetchAPI.Response === native,
  }));
  server.close();
});
`;

describe.runIf(database === 'sqlite')("the adapter's Response for Yoga's answers", () => {
  it('is the lightweight one @hono/node-server serves, which Yoga would not use by default', async () => {
    const { code, stdout, stderr } = await runNode(
      ['--import', 'tsx', '--input-type=module', '--eval', probe],
      {},
      { timeoutMs: 30_000 },
    );
    expect(code, stderr).toBe(0);
    expect(JSON.parse(stdout.trim())).toEqual({
      text: 'ok',
      replaced: true,
      answeredWithTheAdapters: true,
      yogaDefaultIsGlobal: false,
    });
  });
});
