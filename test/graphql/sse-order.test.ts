import { expect, it } from 'vitest';
import { describeDb } from '../helpers/app.js';
import { makeCategory } from '../helpers/factories.js';
import { restCall, type SseMessage, sseStream, untilOpen, useServedApp } from '../helpers/live.js';

type Stream = ReturnType<typeof sseStream>;

/** Reads `count` messages of a stream: each a `next`, ids strictly increasing; their pets' ids. */
async function readPets(stream: Stream, count: number): Promise<string[]> {
  const messages: SseMessage[] = [];
  for (let i = 0; i < count; i++) messages.push(await stream.next(10_000));
  const ids = messages.map((message) => BigInt(message.id ?? ''));
  for (let i = 1; i < ids.length; i++) expect(ids[i]).toBeGreaterThan(ids[i - 1] as bigint);
  expect(messages.every((message) => message.event === 'next')).toBe(true);
  return messages.map((message) => JSON.parse(message.data).data.petChanged.id as string);
}

describeDb('the events of a fan-out group to an SSE subscriber over real HTTP', () => {
  const { app, server } = useServedApp();

  it('arrive in order, each once, however quickly they follow each other, for a member that joined at once or mid-burst', async () => {
    const category = await makeCategory(app());
    const query = 'subscription { petChanged { kind id } }';
    // Two members of one group: the group's writes are what each receives.
    const stream = sseStream(server(), { query });
    const other = sseStream(server(), { query });
    await untilOpen(server(), 2);
    const writer = await app().token();
    const created: string[] = [];
    const create = async (i: number) => {
      const pet = await restCall(server(), 'POST', '/pets', writer, {
        name: `Quick ${i}`,
        categoryId: Number(category.id),
      });
      expect(pet.status).toBe(201);
      created.push(String(pet.body?.id));
    };
    await create(0);
    const first = await stream.next();
    // Bursts of concurrent writes: the group writes their events a few turns of the event loop
    // apart, to a member whose bytes already go straight to its response.
    const burst = (from: number) =>
      Promise.all(Array.from({ length: 40 }, (_, i) => create(from + i)));
    await burst(1);
    // A third subscriber resumes from the first event while more are written: it reads its own
    // stream to catch up, then joins the group mid-burst.
    const resumed = sseStream(server(), { query, lastEventId: first.id });
    await Promise.all([burst(41), burst(81)]);
    const expected = created.toSorted();
    const pets = [JSON.parse(first.data).data.petChanged.id, ...(await readPets(stream, 120))];
    expect(pets.toSorted()).toEqual(expected);
    expect(new Set(pets).size).toBe(121);
    const later = await readPets(resumed, 120);
    expect(later.toSorted()).toEqual(expected.filter((id) => id !== pets[0]).toSorted());
    expect((await readPets(other, 121)).toSorted()).toEqual(expected);
    for (const each of [stream, other, resumed]) each.close();
    await untilOpen(server(), 0);
  });
});
