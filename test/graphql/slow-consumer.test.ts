import { expect, it } from 'vitest';
import { describeDb, useTestApp } from '../helpers/app.js';
import { makeCategory } from '../helpers/factories.js';
import { firstEvent } from '../helpers/live.js';
import { rest } from '../helpers/rest.js';

/** The SSE messages of a stream, read until `count` `next` events have come. */
async function readEvents(response: Response, count: number) {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  const messages: { id?: string; data: Record<string, unknown> }[] = [];
  while (messages.length < count) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
    let end = text.indexOf('\n\n');
    while (end >= 0) {
      const lines = text.slice(0, end).split('\n');
      text = text.slice(end + 2);
      end = text.indexOf('\n\n');
      if (lines[0] !== 'event: next') continue;
      const field = (name: string) =>
        lines
          .find((line) => line.startsWith(`${name}:`))
          ?.slice(name.length + 1)
          .trim();
      messages.push({ id: field('id'), data: JSON.parse(field('data') ?? '') });
    }
  }
  await reader.cancel();
  return messages;
}

describeDb('a subscriber that does not read', () => {
  const app = useTestApp({ EVENT_BUFFER_SIZE: '20' });

  it('once it reads, every event comes, in order, each once, past the event buffer too (within SUBSCRIBER_BUFFER_BYTES)', async () => {
    const response = await app().fetch(
      new Request('http://petstore.test/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({ query: 'subscription { petChanged { kind id cursor } }' }),
      }),
    );
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    // Nothing is read from the stream while the pets are created: far more events than the
    // process keeps in memory (20 here), which the stream then reads from the outbox.
    const category = await makeCategory(app());
    const created: string[] = [];
    for (let i = 0; i < 120; i++) {
      const pet = await rest(app(), 'POST', '/pets', {
        json: { name: `Pet ${i}`, categoryId: Number(category.id) },
      });
      expect(pet.status).toBe(201);
      created.push(String((pet.body as { id: number }).id));
    }

    const messages = await readEvents(response, 120);
    expect(messages.map((message) => message.data)).toEqual(
      created.map((id, i) => {
        const event = {
          data: { petChanged: { kind: 'created', id, cursor: messages[i]?.id } },
          extensions: { cursor: messages[i]?.id },
        };
        // The stream's first event carries the subscription's warning.
        return i === 0 ? firstEvent(event, 'petChanged') : event;
      }),
    );
    const cursors = messages.map((message) => BigInt(message.id ?? 0));
    for (let i = 1; i < cursors.length; i++)
      expect(cursors[i]).toBeGreaterThan(cursors[i - 1] as bigint);
  });
});
