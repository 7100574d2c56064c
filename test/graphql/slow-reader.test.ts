import { request as httpRequest } from 'node:http';
import { expect, it } from 'vitest';
import { describeDb, useTestApp } from '../helpers/app.js';
import { makeCategory, makePet } from '../helpers/factories.js';
import {
  openSubscriptions,
  restCall,
  sseStream,
  untilOpen,
  useServedApp,
} from '../helpers/live.js';
import { rest } from '../helpers/rest.js';

const query = 'subscription { petChanged { kind id cursor } }';

/** An SSE subscription on the app's fetch: its reader and its next `next` message. */
async function subscribe(fetch: (request: Request) => Promise<Response>, lastEventId?: string) {
  const response = await fetch(
    new Request('http://petstore.test/graphql', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'text/event-stream',
        ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
      },
      body: JSON.stringify({ query }),
    }),
  );
  expect(response.headers.get('content-type')).toBe('text/event-stream');
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  return {
    reader,
    async next(): Promise<{ id: string; data: { petChanged: { id: string } } }> {
      for (;;) {
        const end = text.indexOf('\n\n');
        if (end >= 0) {
          const lines = text.slice(0, end).split('\n');
          text = text.slice(end + 2);
          if (lines[0] !== 'event: next') continue;
          const field = (name: string) =>
            lines
              .find((line) => line.startsWith(`${name}:`))
              ?.slice(name.length + 1)
              .trim() ?? '';
          return { id: field('id'), data: JSON.parse(field('data')).data };
        }
        const { value, done } = await reader.read();
        if (done) throw new Error('the stream ended');
        text += decoder.decode(value, { stream: true });
      }
    },
  };
}

describeDb('a subscriber that stops reading', () => {
  const app = useTestApp({ SUBSCRIBER_BUFFER_BYTES: '4096' });

  it('is closed once it leaves more than SUBSCRIBER_BUFFER_BYTES unread, and resumes from its last event id without a gap', async () => {
    const fetch = (request: Request) => app().fetch(request);
    const stream = await subscribe(fetch);
    const category = await makeCategory(app());
    const create = async (i: number) => {
      const pet = await rest(app(), 'POST', '/pets', {
        json: { name: `Pet ${i}`, categoryId: Number(category.id) },
      });
      expect(pet.status).toBe(201);
      return String((pet.body as { id: number }).id);
    };
    const created = [await create(0), await create(1)];
    const read = [await stream.next(), await stream.next()];
    expect(read.map((message) => message.data.petChanged.id)).toEqual(created);

    // Then it reads nothing while 80 more pets are made: about 8 KiB of events, twice the bound.
    for (let i = 2; i < 82; i++) created.push(await create(i));
    await expect(stream.reader.read()).rejects.toThrow(/SUBSCRIBER_BUFFER_BYTES/);

    // Resumed from the last event it read: every later one, in order, each once.
    const resumed = await subscribe(fetch, read[1]?.id);
    const later = [];
    for (let i = 2; i < 82; i++) later.push(await resumed.next());
    expect(later.map((message) => message.data.petChanged.id)).toEqual(created.slice(2));
    await resumed.reader.cancel();
  });
});

describeDb('an SSE subscriber over real HTTP that stops reading', () => {
  // The default bound (1 MiB): far above one event (about 55 KB here) and a burst of them to a
  // client that reads.
  const { app, server } = useServedApp();

  it('is closed once it leaves more than SUBSCRIBER_BUFFER_BYTES unread beyond the sockets, and resumes without a gap', async () => {
    // Events of about 55 KB (100 pets of the category, five 100-character names each), so that
    // the sockets' own buffers (megabytes on loopback) fill in a few dozen writes.
    const category = await makeCategory(app());
    const name = (i: number) => `Slow ${i} `.padEnd(100, 'x');
    for (let i = 0; i < 100; i++) await makePet(app(), { name: name(i), categoryId: category.id });
    const pet = await makePet(app(), { name: name(100), categoryId: category.id });
    const names = ['a', 'b', 'c', 'd', 'e'].map((alias) => `${alias}: name`).join(' ');
    const query = `subscription { petChanged(id: "${pet.id}") { cursor pet { category { pets(first: 100) { edges { node { ${names} } } } } } } }`;
    const writer = await app().token();
    let written = 0;
    const rename = async () => {
      const renamed = await restCall(server(), 'PUT', `/pets/${pet.id}`, writer, {
        name: name(101 + written++),
        categoryId: Number(category.id),
      });
      expect(renamed.status).toBe(200);
    };
    // A reader of every event, and one that stops reading after its first.
    const reference = sseStream(server(), { query });
    let first: string | undefined;
    const slow = httpRequest(`${server().url}/graphql`, {
      method: 'POST',
      agent: false,
      headers: { accept: 'text/event-stream', 'content-type': 'application/json' },
    });
    slow.on('error', () => {});
    slow.on('response', (response) => {
      let text = '';
      response.on('error', () => {});
      response.on('data', (chunk: Buffer) => {
        text += chunk.toString();
        first ??= /^id: (\d+)$/m.exec(text)?.[1];
        if (first !== undefined) response.pause();
      });
    });
    slow.end(JSON.stringify({ query }));
    await untilOpen(server(), 2);
    await rename();
    while (first === undefined) await new Promise((resolve) => setTimeout(resolve, 10));

    // It reads no more: the sockets' buffers fill, then what the server holds passes the bound
    // and the server closes the connection, which ends the subscription.
    while ((await openSubscriptions(server())) > 1 && written < 400) await rename();
    expect(await openSubscriptions(server())).toBe(1);
    slow.destroy();

    // Resumed from the last event it read: every later one, in order, each once.
    const resumed = sseStream(server(), { query, lastEventId: first });
    const ids = async (stream: typeof resumed, count: number) => {
      const read: string[] = [];
      for (let i = 0; i < count; i++) read.push((await stream.next(10_000)).id ?? '');
      return read;
    };
    const all = await ids(reference, written);
    expect(all[0]).toBe(first);
    expect(await ids(resumed, written - 1)).toEqual(all.slice(1));
    reference.close();
    resumed.close();
    await untilOpen(server(), 0);
  });
});
