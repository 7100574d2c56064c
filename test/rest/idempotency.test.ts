import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { forgetExpiredKeys } from '../../src/db/idempotency-keys.js';
import type { Change } from '../../src/domain/changes.js';
import { describeDb, useTestApp } from '../helpers/app.js';
import { anonymous, withAuthorization } from '../helpers/client.js';
import { makeOrder, makePet, sendTwiceWhileHeld, stockOf } from '../helpers/factories.js';
import { expectError, type RestResponse, rest } from '../helpers/rest.js';

/** What a replay must repeat of the first answer. */
const answer = (response: RestResponse) => ({
  status: response.status,
  text: response.text,
  location: response.headers.get('location'),
  etag: response.headers.get('etag'),
  contentType: response.headers.get('content-type'),
});

describeDb('Idempotency-Key on REST writes', () => {
  const app = useTestApp();

  /** Every change published while `during` runs. */
  async function changesDuring(during: () => Promise<void>): Promise<Change[]> {
    const seen: Change[] = [];
    const stop = app().changes.subscribe((changes) => {
      seen.push(...changes);
    });
    try {
      await during();
    } finally {
      stop();
    }
    return seen;
  }

  const ordersOf = (petId: bigint) => app().database.prisma.order.count({ where: { petId } });

  it('replays the response of a retried order: one order, stock taken once, no second event', async () => {
    const pet = await makePet(app(), { quantity: 5 });
    const key = randomUUID();
    const order = { petId: Number(pet.id), quantity: 2 };
    const first = await rest<{ id: number }>(app(), 'POST', '/store/orders', {
      json: order,
      headers: { 'idempotency-key': key },
    });
    expect(first.status).toBe(201);
    expect(first.headers.get('location')).toBe(`/api/store/orders/${first.body.id}`);
    expect(first.headers.get('etag')).toBe('"1"');
    expect(first.headers.get('idempotent-replayed')).toBeNull();

    let again: RestResponse | undefined;
    const events = await changesDuring(async () => {
      again = await rest(app(), 'POST', '/store/orders', {
        json: order,
        headers: { 'idempotency-key': key },
      });
    });
    expect(again && answer(again)).toEqual(answer(first));
    expect(again?.headers.get('idempotent-replayed')).toBe('true');
    expect(events).toEqual([]);
    expect(await ordersOf(pet.id)).toBe(1);
    expect(await stockOf(app(), pet.id)).toEqual({ quantity: 3, status: 'available' });
  });

  it('replays a refusal too (409), without trying again', async () => {
    const pet = await makePet(app(), { quantity: 1 });
    const key = randomUUID();
    const order = { petId: Number(pet.id), quantity: 2 };
    const first = await rest(app(), 'POST', '/store/orders', {
      json: order,
      headers: { 'idempotency-key': key },
    });
    expectError(first, 409, 'INSUFFICIENT_STOCK');
    // Stock arrives: a retry with the same key still gets the recorded answer.
    await rest(app(), 'PUT', `/store/inventory/${pet.id}`, { json: { quantity: 10 } });
    const again = await rest(app(), 'POST', '/store/orders', {
      json: order,
      headers: { 'idempotency-key': key },
    });
    expect(answer(again)).toEqual(answer(first));
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await ordersOf(pet.id)).toBe(0);
  });

  it('refuses the same key with another body, path or method: 422 IDEMPOTENCY_KEY_REUSED', async () => {
    const pet = await makePet(app(), { quantity: 5 });
    const key = randomUUID();
    const sent = await rest<{ id: number }>(app(), 'POST', '/store/orders', {
      json: { petId: Number(pet.id), quantity: 1 },
      headers: { 'idempotency-key': key },
    });
    expect(sent.status).toBe(201);
    const otherBody = await rest(app(), 'POST', '/store/orders', {
      json: { petId: Number(pet.id), quantity: 2 },
      headers: { 'idempotency-key': key },
    });
    expectError(otherBody, 422, 'IDEMPOTENCY_KEY_REUSED');
    const otherPath = await rest(app(), 'PATCH', `/store/orders/${sent.body.id}`, {
      json: { complete: true },
      headers: { 'idempotency-key': key },
    });
    expectError(otherPath, 422, 'IDEMPOTENCY_KEY_REUSED');
    expect(await ordersOf(pet.id)).toBe(1);
    expect(await stockOf(app(), pet.id)).toEqual({ quantity: 4, status: 'available' });
  });

  it('answers 409 IDEMPOTENCY_KEY_IN_FLIGHT with Retry-After while the first request runs', async () => {
    const pet = await makePet(app(), { quantity: 5 });
    const key = randomUUID();
    const send = () =>
      rest(app(), 'POST', '/store/orders', {
        json: { petId: Number(pet.id), quantity: 1 },
        headers: { 'idempotency-key': key },
      });
    const { first, second: retried } = await sendTwiceWhileHeld(app(), pet.id, send);
    expectError(retried, 409, 'IDEMPOTENCY_KEY_IN_FLIGHT');
    expect(retried.headers.get('retry-after')).toBe('1');
    const done = await first;
    expect(done.status).toBe(201);
    const later = await send();
    expect(answer(later)).toEqual(answer(done));
    expect(await ordersOf(pet.id)).toBe(1);
  });

  it('creates exactly one order from 20 simultaneous requests with one key', async () => {
    const pet = await makePet(app(), { quantity: 100 });
    const key = randomUUID();
    const responses = await Promise.all(
      Array.from({ length: 20 }, () =>
        rest<{ id: number }>(app(), 'POST', '/store/orders', {
          json: { petId: Number(pet.id), quantity: 3 },
          headers: { 'idempotency-key': key },
        }),
      ),
    );
    const created = responses.filter((response) => response.status === 201);
    const inFlight = responses.filter((response) => response.status === 409);
    expect(created.length + inFlight.length).toBe(20);
    expect(created.length).toBeGreaterThanOrEqual(1);
    const [one] = created as [RestResponse];
    for (const response of created) expect(answer(response)).toEqual(answer(one));
    for (const response of inFlight) expectError(response, 409, 'IDEMPOTENCY_KEY_IN_FLIGHT');
    expect(await ordersOf(pet.id)).toBe(1);
    expect(await stockOf(app(), pet.id)).toEqual({ quantity: 97, status: 'available' });
  });

  it('keeps the keys of two callers apart', async () => {
    const pet = await makePet(app(), { quantity: 5 });
    const key = randomUUID();
    const order = { petId: Number(pet.id), quantity: 1 };
    const alice = withAuthorization(
      app(),
      `Bearer ${await app().token(undefined, { subject: 'alice' })}`,
    );
    const bob = withAuthorization(
      app(),
      `Bearer ${await app().token(undefined, { subject: 'bob' })}`,
    );
    const fromAlice = await rest<{ id: number }>(alice, 'POST', '/store/orders', {
      json: order,
      headers: { 'idempotency-key': key },
    });
    const fromBob = await rest<{ id: number }>(bob, 'POST', '/store/orders', {
      json: order,
      headers: { 'idempotency-key': key },
    });
    expect([fromAlice.status, fromBob.status]).toEqual([201, 201]);
    expect(fromBob.headers.get('idempotent-replayed')).toBeNull();
    expect(fromBob.body.id).not.toBe(fromAlice.body.id);
    // And Bob's other body under the same key is his own business, not a reuse of Alice's.
    expect(await ordersOf(pet.id)).toBe(2);
  });

  it('takes keys on every POST and PATCH: a created pet, a completed order', async () => {
    const pet = await makePet(app(), { quantity: 5 });
    const created = await rest(app(), 'POST', '/pets', {
      json: { name: 'Keyed', categoryId: Number(pet.categoryId) },
      headers: { 'idempotency-key': 'create-keyed-pet' },
    });
    const replayed = await rest(app(), 'POST', '/pets', {
      json: { name: 'Keyed', categoryId: Number(pet.categoryId) },
      headers: { 'idempotency-key': 'create-keyed-pet' },
    });
    expect(answer(replayed)).toEqual(answer(created));
    expect(await app().database.prisma.pet.count({ where: { name: 'Keyed' } })).toBe(1);

    const order = await makeOrder(app(), { petId: pet.id });
    const patch = () =>
      rest(app(), 'PATCH', `/store/orders/${order.id}`, {
        json: { complete: true },
        headers: { 'idempotency-key': 'complete-it' },
      });
    const completed = await patch();
    expect(completed.status).toBe(200);
    expect(completed.headers.get('etag')).toBe('"2"');
    const again = await patch();
    expect(answer(again)).toEqual(answer(completed));
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });

  it('refuses a key that is empty, too long or not printable ASCII: 400', async () => {
    const pet = await makePet(app(), { quantity: 5 });
    for (const key of ['x'.repeat(256), 'clé']) {
      const response = await rest(app(), 'POST', '/store/orders', {
        json: { petId: Number(pet.id), quantity: 1 },
        headers: { 'idempotency-key': key },
      });
      expectError(response, 400, 'VALIDATION_FAILED', /Idempotency-Key must be 1 to 255/);
    }
    expect(await ordersOf(pet.id)).toBe(0);
  });

  it('records nothing for a request refused before authorisation: its retry runs', async () => {
    const pet = await makePet(app(), { quantity: 5 });
    const key = randomUUID();
    const reader = withAuthorization(app(), `Bearer ${await app().token(['orders:read'])}`);
    const refused = await rest(reader, 'POST', '/store/orders', {
      json: { petId: Number(pet.id), quantity: 1 },
      headers: { 'idempotency-key': key },
    });
    expectError(refused, 403, 'FORBIDDEN');
    const writer = withAuthorization(
      app(),
      `Bearer ${await app().token(['orders:write'], { subject: 'developer' })}`,
    );
    const placed = await rest(writer, 'POST', '/store/orders', {
      json: { petId: Number(pet.id), quantity: 1 },
      headers: { 'idempotency-key': key },
    });
    expect(placed.status).toBe(201);
  });

  it('forgets a key once its time is up: the same key then runs as new', async () => {
    const pet = await makePet(app(), { quantity: 5 });
    const key = randomUUID();
    const send = (quantity: number) =>
      rest(app(), 'POST', '/store/orders', {
        json: { petId: Number(pet.id), quantity },
        headers: { 'idempotency-key': key },
      });
    expect((await send(1)).status).toBe(201);
    // IDEMPOTENCY_KEY_TTL_HOURS later (the clock moved by rewriting the key's expiry).
    await app().sql(`UPDATE "IdempotencyKey" SET "expiresAt" = 0`);
    const later = await send(2);
    expect(later.status).toBe(201);
    expect(later.headers.get('idempotent-replayed')).toBeNull();
    expect(await ordersOf(pet.id)).toBe(2);
    // Expired keys are removed in the background.
    await app().sql(`UPDATE "IdempotencyKey" SET "expiresAt" = 0`);
    expect(await forgetExpiredKeys(app().database.prisma, Date.now(), 500)).toBeGreaterThan(0);
    expect(await app().database.prisma.idempotencyKey.count()).toBe(0);
  });

  it('takes a key only from a token with a subject: anonymous or without sub is 400, nothing written', async () => {
    const pet = await makePet(app(), { quantity: 5 });
    const noSubject = withAuthorization(
      app(),
      `Bearer ${await app().token(undefined, { subject: null })}`,
    );
    for (const caller of [anonymous(app()), noSubject]) {
      const response = await rest(caller, 'POST', '/store/orders', {
        json: { petId: Number(pet.id), quantity: 1 },
        headers: { 'idempotency-key': randomUUID() },
      });
      expectError(
        response,
        400,
        'VALIDATION_FAILED',
        /Idempotency-Key needs a bearer token with a subject/,
      );
    }
    expect(await ordersOf(pet.id)).toBe(0);
    // Without a key, the token without a subject writes as before.
    const unkeyed = await rest(noSubject, 'POST', '/store/orders', {
      json: { petId: Number(pet.id), quantity: 1 },
    });
    expect(unkeyed.status).toBe(201);
  });

  it('replays a key only to a token that may make the request: 403 otherwise, the record kept', async () => {
    const pet = await makePet(app(), { quantity: 5 });
    const key = randomUUID();
    const subject = `shared-${randomUUID()}`;
    const as = async (scopes: string[]) =>
      withAuthorization(app(), `Bearer ${await app().token(scopes, { subject })}`);
    const order = { petId: Number(pet.id), quantity: 1 };
    const send = async (scopes: string[]) =>
      rest(await as(scopes), 'POST', '/store/orders', {
        json: order,
        headers: { 'idempotency-key': key },
      });
    const first = await send(['orders:write']);
    expect(first.status).toBe(201);
    expectError(await send(['orders:read']), 403, 'FORBIDDEN', /orders:write/);
    const again = await send(['orders:write']);
    expect(answer(again)).toEqual(answer(first));
    expect(await ordersOf(pet.id)).toBe(1);
  });

  it('ignores a key on a safe method', async () => {
    const pet = await makePet(app());
    const read = await rest(app(), 'GET', `/pets/${pet.id}`, {
      headers: { 'idempotency-key': 'é'.repeat(300) },
    });
    expect(read.status).toBe(200);
  });
});
