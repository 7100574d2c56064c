import type { ExecutionResult } from 'graphql';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeDb, useTestApp } from '../helpers/app.js';
import { makePet } from '../helpers/factories.js';
import {
  codeOf,
  events,
  firstEvent,
  restCall,
  type Served,
  type SseMessage,
  serveApp,
  sseStream,
  untilOpen,
  wsClient,
} from '../helpers/live.js';

type OrderEvent = {
  orderChanged: { kind: string; id: string; order: { quantity: number } | null };
};

const ordersOf = (petId: bigint) =>
  `subscription Orders($after: String) { orderChanged(petId: "${petId}", after: $after) { kind id order { quantity } } }`;

const dataOf = (message: SseMessage) => JSON.parse(message.data) as ExecutionResult<OrderEvent>;

describeDb('resuming a subscription from its last event', () => {
  const app = useTestApp();
  let server: Served & { close(): Promise<void> };
  let token: string;
  beforeAll(async () => {
    server = await serveApp(app());
    token = await app().token();
  });
  afterAll(() => server?.close());

  /** Places an order over REST (HTTP); its id. */
  const place = async (petId: bigint, quantity: number) => {
    const placed = await restCall(server, 'POST', '/store/orders', token, {
      petId: Number(petId),
      quantity,
    });
    expect(placed.status).toBe(201);
    return String(placed.body?.id);
  };

  it('SSE: reconnecting with Last-Event-ID brings exactly the 5 orders placed meanwhile, in order, then live ones', async () => {
    const pet = await makePet(app(), { quantity: 100 });
    const query = ordersOf(pet.id);
    const first = sseStream(server, { query, token });
    await untilOpen(server, 1);
    const before = await place(pet.id, 1);
    const seen = await first.next();
    expect(seen.event).toBe('next');
    expect(seen.id).toMatch(/^\d+$/);
    // The stream's first event: its cursor, and the subscription's warning (it is @experimental).
    expect(dataOf(seen)).toEqual(
      firstEvent(
        {
          data: { orderChanged: { kind: 'created', id: before, order: { quantity: 1 } } },
          extensions: { cursor: seen.id },
        },
        'orderChanged',
      ),
    );
    first.close();
    await untilOpen(server, 0);

    // While the subscriber is away.
    const missed = [];
    for (let quantity = 1; quantity <= 5; quantity++) missed.push(await place(pet.id, quantity));

    const again = sseStream(server, { query, token, lastEventId: seen.id });
    const replayed = [];
    for (let i = 0; i < 5; i++) replayed.push(await again.next());
    expect(replayed.map((message) => dataOf(message).data?.orderChanged)).toEqual(
      missed.map((id, i) => ({ kind: 'created', id, order: { quantity: i + 1 } })),
    );
    const ids = replayed.map((message) => BigInt(message.id ?? ''));
    expect(ids[0]).toBeGreaterThan(BigInt(seen.id ?? ''));
    for (let i = 1; i < ids.length; i++) expect(ids[i]).toBeGreaterThan(ids[i - 1] as bigint);

    // Then live, with nothing twice.
    const live = await place(pet.id, 2);
    expect(dataOf(await again.next()).data?.orderChanged.id).toBe(live);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(again.unread).toEqual([]);
    again.close();
    await untilOpen(server, 0);
  });

  it('graphql-ws: subscribing again with `after` brings exactly the 5 orders placed meanwhile, in order, then live ones', async () => {
    const pet = await makePet(app(), { quantity: 100 });
    const query = ordersOf(pet.id);
    const ws = wsClient(server, token);
    const first = events<ExecutionResult<OrderEvent>>((sink) =>
      ws.subscribe<OrderEvent>({ query }, sink),
    );
    await untilOpen(server, 1);
    await place(pet.id, 1);
    const seen = await first.next();
    const cursor = seen.extensions?.cursor as string;
    expect(cursor).toMatch(/^\d+$/);
    first.close();
    await untilOpen(server, 0);

    const missed = [];
    for (let quantity = 1; quantity <= 5; quantity++) missed.push(await place(pet.id, quantity));

    const again = events<ExecutionResult<OrderEvent>>((sink) =>
      ws.subscribe<OrderEvent>({ query, variables: { after: cursor } }, sink),
    );
    const replayed = [];
    for (let i = 0; i < 5; i++) replayed.push(await again.next());
    expect(replayed.map((result) => result.data?.orderChanged)).toEqual(
      missed.map((id, i) => ({ kind: 'created', id, order: { quantity: i + 1 } })),
    );
    const cursors = replayed.map((result) => BigInt(result.extensions?.cursor as string));
    expect(cursors[0]).toBeGreaterThan(BigInt(cursor));
    for (let i = 1; i < cursors.length; i++)
      expect(cursors[i]).toBeGreaterThan(cursors[i - 1] as bigint);

    const live = await place(pet.id, 2);
    expect((await again.next()).data?.orderChanged.id).toBe(live);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(again.unread).toEqual([]);
    again.close();
    await ws.dispose();
    await untilOpen(server, 0);
  });

  it('answers EVENT_CURSOR_EXPIRED (410) for a cursor older than the events kept, on both transports, never a gap', async () => {
    const pet = await makePet(app(), { quantity: 100 });
    const query = ordersOf(pet.id);
    const first = sseStream(server, { query, token });
    await untilOpen(server, 1);
    await place(pet.id, 1);
    const old = (await first.next()).id as string;
    first.close();
    await place(pet.id, 1);
    await place(pet.id, 1);

    // Past the retention: the sweep removes every event up to the one after `old`.
    await app().sql(`UPDATE "ChangeEvent" SET "createdAt" = 0 WHERE "id" <= ${BigInt(old) + 1n}`);
    expect(await app().events.retention.sweep()).toBeGreaterThanOrEqual(2);

    const expired = {
      code: 'EVENT_CURSOR_EXPIRED',
      status: 410,
    };
    const overSse = sseStream(server, { query, token, lastEventId: old });
    const refused = await overSse.next();
    expect(await overSse.status).toBe(200);
    expect(codeOf(dataOf(refused))).toEqual(expired);
    expect(dataOf(refused).errors?.[0]?.message).toBe(
      `The events after cursor ${old} are no longer kept: read the data again, then subscribe without a cursor`,
    );
    expect((await overSse.next()).event).toBe('complete');

    const ws = wsClient(server, token);
    const overWs = events((sink) => ws.subscribe({ query, variables: { after: old } }, sink));
    expect(codeOf(await overWs.next())).toEqual(expired);
    expect(await overWs.ended).toBeUndefined();

    // The cursor of the event just after the removed ones still resumes; one beyond the newest
    // names no event of this store; one that is no cursor is a bad request.
    const kept = sseStream(server, { query, token, lastEventId: String(BigInt(old) + 1n) });
    const next = await kept.next();
    expect(dataOf(next).data?.orderChanged.kind).toBe('created');
    expect(BigInt(next.id ?? '')).toBe(BigInt(old) + 2n);
    kept.close();
    for (const [after, code] of [
      ['99999999999', 'EVENT_CURSOR_EXPIRED'],
      ['not-a-cursor', 'VALIDATION_FAILED'],
    ]) {
      const refusedOverWs = events((sink) => ws.subscribe({ query, variables: { after } }, sink));
      expect(codeOf(await refusedOverWs.next()).code).toBe(code);
    }
    await ws.dispose();
    await untilOpen(server, 0);
  });

  it('checks the scopes again on resume', async () => {
    const pet = await makePet(app(), { quantity: 100 });
    const query = ordersOf(pet.id);
    const first = sseStream(server, { query, token });
    await untilOpen(server, 1);
    await place(pet.id, 1);
    const cursor = (await first.next()).id as string;
    first.close();
    await place(pet.id, 1);

    const refusals: [string | undefined, { code: string; status: number }][] = [
      [undefined, { code: 'UNAUTHENTICATED', status: 401 }],
      [await app().token(['pets:write']), { code: 'FORBIDDEN', status: 403 }],
    ];
    for (const [caller, expected] of refusals) {
      const overSse = sseStream(server, {
        query,
        lastEventId: cursor,
        ...(caller ? { token: caller } : {}),
      });
      expect(codeOf(dataOf(await overSse.next()))).toEqual(expected);
      const ws = wsClient(server, caller);
      const overWs = events((sink) => ws.subscribe({ query, variables: { after: cursor } }, sink));
      expect(codeOf(await overWs.next())).toEqual(expected);
      await ws.dispose();
    }
    // An expired token is refused before anything runs.
    const expiredToken = await app().token(undefined, { expiresIn: -60 });
    const overSse = sseStream(server, { query, token: expiredToken, lastEventId: cursor });
    expect(await overSse.status).toBe(401);
    await untilOpen(server, 0);
  });

  it('keeps the events for the retention, removing the oldest but never the newest', async () => {
    const pet = await makePet(app(), { quantity: 100 });
    await place(pet.id, 1);
    await place(pet.id, 1);
    await app().sql('UPDATE "ChangeEvent" SET "createdAt" = 0');
    await app().events.retention.sweep();
    const left = await app().database.prisma.changeEvent.findMany({ select: { id: true } });
    expect(left).toHaveLength(1);
    // Once newer events come, the old one goes; nothing younger than the retention does.
    await place(pet.id, 1);
    expect(await app().events.retention.sweep()).toBe(1);
    expect(await app().events.retention.sweep()).toBe(0);
    expect(await app().database.prisma.changeEvent.count()).toBe(2);
  });
});
