import { expect, it } from 'vitest';
import { SUBSCRIPTION_QUEUE_SIZE } from '../../src/graphql/subscriptions.js';
import { describeDb, useTestApp } from '../helpers/app.js';
import { makeCategory } from '../helpers/factories.js';
import { rest } from '../helpers/rest.js';

describeDb('a subscriber that does not read', () => {
  const app = useTestApp();

  it('is ended with RATE_LIMITED once more events wait than its queue holds', async () => {
    const response = await app().fetch(
      new Request('http://petstore.test/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({ query: 'subscription { petChanged { kind id } }' }),
      }),
    );
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    // Nothing is read from the stream while the pets are created: each is a distinct event.
    const category = await makeCategory(app());
    for (let i = 0; i <= SUBSCRIPTION_QUEUE_SIZE; i++) {
      const created = await rest(app(), 'POST', '/pets', {
        json: { name: `Pet ${i}`, categoryId: Number(category.id) },
      });
      expect(created.status).toBe(201);
    }

    const text = await response.text();
    const messages = text
      .split('\n\n')
      .filter((message) => message.startsWith('event:'))
      .map((message) => {
        const [event, data] = message.split('\n');
        return { event: event?.slice('event: '.length), data: data?.slice('data:'.length).trim() };
      });
    expect(messages).toHaveLength(2);
    expect(messages[1]).toEqual({ event: 'complete', data: '' });
    // The stream's first (and last) event: it carries the subscription's warning.
    expect(JSON.parse(messages[0]?.data ?? '')).toEqual({
      extensions: {
        warnings: [expect.objectContaining({ coordinate: 'Subscription.petChanged' })],
      },
      data: null,
      errors: [
        {
          message: `More than ${SUBSCRIPTION_QUEUE_SIZE} events waited for this subscription because the client did not read them; it has been ended: subscribe again and re-read what you show`,
          locations: [{ line: 1, column: 16 }],
          path: ['petChanged'],
          extensions: { code: 'RATE_LIMITED', status: 429 },
        },
      ],
    });
  });
});
