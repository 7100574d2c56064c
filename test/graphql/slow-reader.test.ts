import { expect, it } from 'vitest';
import { describeDb, useTestApp } from '../helpers/app.js';
import { makeCategory } from '../helpers/factories.js';
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
