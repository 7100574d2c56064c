import type { ExecutionResult } from 'graphql';
import { expect, it } from 'vitest';
import WebSocket from 'ws';
import { describeDb } from '../helpers/app.js';
import { makePet } from '../helpers/factories.js';
import {
  events,
  openSubscriptions,
  restCall,
  type Served,
  untilOpen,
  useServedApp,
  wsClient,
  wsUrl,
} from '../helpers/live.js';

type Renamed = { petChanged: { cursor: string; pet: Record<string, string> } };

/** A pet's name of 100 characters, numbered. */
const nameOf = (i: number) => `Slow ${i} `.padEnd(100, 'x');

/** 20 aliases of the pet's name (the most the server allows): about 2.4 KB an event. */
const selection = Array.from({ length: 20 }, (_, i) => `n${i}: name`).join(' ');
const queryOf = (petId: string, after?: string) =>
  `subscription { petChanged(id: "${petId}"${after ? `, after: "${after}"` : ''}) { cursor pet { ${selection} } } }`;

/**
 * A graphql-transport-ws connection spoken by hand over `ws`, so that the test can stop reading
 * it (`pause`: the socket is no longer read, its buffers fill up).
 */
async function rawSocket(server: Served) {
  const socket = new WebSocket(wsUrl(server), 'graphql-transport-ws');
  const received: { id?: string; type: string; payload?: ExecutionResult<Renamed> }[] = [];
  let waiter: (() => void) | undefined;
  socket.on('message', (data) => {
    received.push(JSON.parse(String(data)));
    waiter?.();
  });
  const closed = new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)));
  const until = async (test: () => boolean) => {
    while (!test()) await new Promise<void>((resolve) => (waiter = resolve));
  };
  await new Promise((resolve) => socket.once('open', resolve));
  socket.send(JSON.stringify({ type: 'connection_init', payload: {} }));
  await until(() => received.some((message) => message.type === 'connection_ack'));
  const nexts = () => received.filter((message) => message.type === 'next');
  return { socket, closed, until, nexts };
}

describeDb('a graphql-ws subscriber that stops reading', () => {
  const { app, server } = useServedApp({ SUBSCRIBER_BUFFER_BYTES: '4096' });

  it('has its socket cut once it leaves more than SUBSCRIBER_BUFFER_BYTES unsent, and resumes with `after` without a gap', async () => {
    const pet = await makePet(app());
    const petId = String(pet.id);
    const writer = await app().token();
    let written = 0;
    const rename = async () => {
      const renamed = await restCall(server(), 'PUT', `/pets/${petId}`, writer, {
        name: nameOf(written++),
        categoryId: Number(pet.categoryId),
      });
      expect(renamed.status).toBe(200);
    };
    // 50 subscriptions on one socket, all members of one group: about 120 KB a write.
    const raw = await rawSocket(server());
    for (let id = 0; id < 50; id++)
      raw.socket.send(
        JSON.stringify({ id: String(id), type: 'subscribe', payload: { query: queryOf(petId) } }),
      );
    // A subscriber that reads everything, on a socket of its own: the events the slow one missed.
    const client = wsClient(server(), writer);
    const reference = events<ExecutionResult<Renamed>>((sink) =>
      client.subscribe({ query: queryOf(petId) }, sink),
    );
    await untilOpen(server(), 51);
    await rename();
    await raw.until(() => raw.nexts().length === 50);
    const last = raw.nexts()[0]?.payload?.data?.petChanged.cursor;
    expect(last).toMatch(/^\d+$/);

    // It reads no more: the kernel's buffers fill, then what the server queues passes the bound
    // and the server cuts the socket, which ends its subscriptions (a paused client sees the cut
    // only once it reads again).
    raw.socket.pause();
    while ((await openSubscriptions(server())) > 1 && written < 300) await rename();
    expect(await openSubscriptions(server())).toBe(1);
    raw.socket.resume();
    expect(await raw.closed).toBe(1006);

    // Resumed after the last event it read: every later rename, in order, each once.
    // Resumed after the last event it read: every later event, in order, each once (a replayed
    // event reads the pet as it is now, so the cursors tell them apart).
    const resumed = events<ExecutionResult<Renamed>>((sink) =>
      client.subscribe({ query: queryOf(petId, last) }, sink),
    );
    const cursorsOf = async (stream: typeof resumed, count: number) => {
      const cursors: string[] = [];
      for (let i = 0; i < count; i++)
        cursors.push((await stream.next()).data?.petChanged.cursor ?? '');
      return cursors;
    };
    const all = await cursorsOf(reference, written);
    expect(all[0]).toBe(last);
    expect(await cursorsOf(resumed, written - 1)).toEqual(all.slice(1));
    expect(new Set(all).size).toBe(written);
    resumed.close();
    reference.close();
    await client.dispose();
  });
});
