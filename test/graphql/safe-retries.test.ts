import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { graphql as gql } from '../generated/index.js';
import { describeDb, useTestApp } from '../helpers/app.js';
import { makePet, sendTwiceWhileHeld, stockOf } from '../helpers/factories.js';
import { errorCodes, graphql, graphqlRequest, withAuthorization } from '../helpers/graphql.js';
import { rest } from '../helpers/rest.js';

const PetVersion = gql(`
  query PetVersion($id: ID!) {
    pet(id: $id) { id version inventory { version } category { version } }
  }
`);

const RenamePet = gql(`
  mutation RenamePet($id: ID!, $input: NewPet!, $ifVersion: String) {
    updatePet(id: $id, input: $input, ifVersion: $ifVersion) { name version }
  }
`);

const SetStock = gql(`
  mutation SetStock($petId: ID!, $quantity: Int!, $ifVersion: String) {
    updateInventory(petId: $petId, input: { quantity: $quantity }, ifVersion: $ifVersion) {
      quantity
      version
    }
  }
`);

const PlaceOrder = gql(`
  mutation KeyedPlaceOrder($input: NewOrder!) {
    placeOrder(input: $input) { id quantity version pet { status inventory { quantity } } }
  }
`);

const PlaceOrderSeeingOrders = gql(`
  mutation PlaceOrderSeeingOrders($input: NewOrder!) {
    placeOrder(input: $input) { id pet { orders { totalCount } } }
  }
`);

/** The Error-shaped codes and statuses of a raw GraphQL response. */
async function refusal(response: Response) {
  const body = (await response.json()) as {
    data?: unknown;
    errors?: { message: string; extensions: { code: string; status: number } }[];
  };
  return {
    status: response.status,
    data: body.data,
    errors: body.errors?.map(({ extensions }) => [extensions.code, extensions.status]),
    message: body.errors?.[0]?.message,
  };
}

describeDb('versions, ifVersion and Idempotency-Key over GraphQL', () => {
  const app = useTestApp();

  it('exposes version, the same value as the REST ETag without quotes', async () => {
    const pet = await makePet(app());
    const read = await graphql(app(), PetVersion, { id: String(pet.id) });
    expect(read.data?.pet).toEqual({
      id: String(pet.id),
      version: '1',
      inventory: { version: '1' },
      category: { version: '1' },
    });
    const rested = await rest(app(), 'GET', `/store/inventory/${pet.id}`);
    expect(rested.headers.get('etag')).toBe(`"${read.data?.pet?.inventory.version}"`);
  });

  it('writes only over ifVersion: PRECONDITION_FAILED otherwise, and nothing changes', async () => {
    const pet = await makePet(app(), { name: 'Before' });
    const input = { name: 'After', categoryId: String(pet.categoryId) };
    const done = await graphql(app(), RenamePet, { id: String(pet.id), input, ifVersion: '1' });
    expect(done.data?.updatePet).toEqual({ name: 'After', version: '2' });
    const stale = await graphql(app(), RenamePet, {
      id: String(pet.id),
      input: { ...input, name: 'Lost' },
      ifVersion: '1',
    });
    expect(stale.status).toBe(200);
    expect(stale.data).toBeNull();
    expect(stale.errors?.[0]).toMatchObject({
      path: ['updatePet'],
      extensions: { code: 'PRECONDITION_FAILED', status: 412 },
    });
    expect(stale.errors?.[0]?.message).toMatch(/version is now 2/);
    // Without ifVersion the write goes through whatever the version.
    const blind = await graphql(app(), RenamePet, { id: String(pet.id), input });
    expect(blind.data?.updatePet.version).toBe('3');

    const stock = await graphql(app(), SetStock, {
      petId: String(pet.id),
      quantity: 4,
      ifVersion: '7',
    });
    expect(errorCodes(stock)).toEqual(['PRECONDITION_FAILED']);
    expect(await stockOf(app(), pet.id)).toEqual({ quantity: 0, status: 'available' });
  });

  it('lets exactly one of 20 simultaneous updatePet holding the same version through', async () => {
    const pet = await makePet(app());
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        graphql(app(), RenamePet, {
          id: String(pet.id),
          input: { name: `Writer ${index}`, categoryId: String(pet.categoryId) },
          ifVersion: '1',
        }),
      ),
    );
    const won = results.filter((result) => result.data?.updatePet);
    const lost = results.filter((result) => errorCodes(result)[0] === 'PRECONDITION_FAILED');
    expect([won.length, lost.length]).toEqual([1, 19]);
    const stored = await app().database.prisma.pet.findUniqueOrThrow({ where: { id: pet.id } });
    expect({ name: stored.name, version: stored.version }).toEqual({
      name: won[0]?.data?.updatePet.name,
      version: 2,
    });
  });

  it('replays a keyed mutation: the same result, Idempotent-Replayed, one order', async () => {
    const pet = await makePet(app(), { quantity: 3 });
    const key = randomUUID();
    const variables = { input: { petId: String(pet.id), quantity: 3 } };
    const first = await graphql(app(), PlaceOrder, variables, { 'idempotency-key': key });
    expect(first.errors).toBeUndefined();
    // The nested reads run in the mutation's transaction: they see its write.
    expect(first.data?.placeOrder).toMatchObject({
      quantity: 3,
      version: '1',
      pet: { status: 'sold', inventory: { quantity: 0 } },
    });
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await graphql(app(), PlaceOrder, variables, { 'idempotency-key': key });
    expect({ status: again.status, data: again.data }).toEqual({
      status: first.status,
      data: first.data,
    });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await app().database.prisma.order.count({ where: { petId: pet.id } })).toBe(1);

    // The same key with other variables is another request.
    const other = await graphql(
      app(),
      PlaceOrder,
      { input: { petId: String(pet.id), quantity: 1 } },
      { 'idempotency-key': key },
    );
    expect(other.status).toBe(422);
    expect(errorCodes(other)).toEqual(['IDEMPOTENCY_KEY_REUSED']);
  });

  it('runs a keyed mutation whose selection reads its own write once, in the request’s one transaction', async () => {
    // The order and the pet read after it share the request's transaction: the read sees the
    // write, and the order, its events and their publication happen once.
    const pet = await makePet(app(), { quantity: 2 });
    const events = () => app().database.prisma.changeEvent.count({ where: { petId: pet.id } });
    const before = await events();
    const published: unknown[] = [];
    const stop = app().changes.subscribe((changes) => {
      published.push(...changes);
    });
    const placed = await graphql(
      app(),
      PlaceOrder,
      { input: { petId: String(pet.id), quantity: 1 } },
      { 'idempotency-key': randomUUID() },
    ).finally(stop);
    expect(placed.errors).toBeUndefined();
    expect(placed.data?.placeOrder.pet).toEqual({
      status: 'available',
      inventory: { quantity: 1 },
    });
    expect(await stockOf(app(), pet.id)).toEqual({ quantity: 1, status: 'available' });
    expect(await app().database.prisma.order.count({ where: { petId: pet.id } })).toBe(1);
    expect(published).toEqual([
      {
        entity: 'order',
        kind: 'created',
        id: BigInt(placed.data?.placeOrder.id ?? 0),
        petId: pet.id,
      },
      { entity: 'inventory', kind: 'updated', petId: pet.id },
    ]);
    // The order's event: the inventory's names no order.
    expect(await events()).toBe(before + 1);
  });

  it('answers 409 IDEMPOTENCY_KEY_IN_FLIGHT with Retry-After while the first mutation runs', async () => {
    const pet = await makePet(app(), { quantity: 5 });
    const key = randomUUID();
    const send = () =>
      graphql(
        app(),
        PlaceOrder,
        { input: { petId: String(pet.id), quantity: 1 } },
        { 'idempotency-key': key },
      );
    const { first, second: retried } = await sendTwiceWhileHeld(app(), pet.id, send);
    expect(retried.status).toBe(409);
    expect(errorCodes(retried)).toEqual(['IDEMPOTENCY_KEY_IN_FLIGHT']);
    expect(retried.headers.get('retry-after')).toBe('1');
    const done = await first;
    expect(done.errors).toBeUndefined();
    const later = await send();
    expect(later.data).toEqual(done.data);
    expect(await app().database.prisma.order.count({ where: { petId: pet.id } })).toBe(1);
  });

  it('records a mutation that failed on a rule, and replays it', async () => {
    const pet = await makePet(app(), { quantity: 1 });
    const key = randomUUID();
    const variables = { input: { petId: String(pet.id), quantity: 2 } };
    const first = await graphql(app(), PlaceOrder, variables, { 'idempotency-key': key });
    expect(errorCodes(first)).toEqual(['INSUFFICIENT_STOCK']);
    await rest(app(), 'PUT', `/store/inventory/${pet.id}`, { json: { quantity: 5 } });
    const again = await graphql(app(), PlaceOrder, variables, { 'idempotency-key': key });
    expect(again.errors).toEqual(first.errors);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await app().database.prisma.order.count({ where: { petId: pet.id } })).toBe(0);
  });

  it('refuses a key on a document with two mutation fields, or on a batch: 400', async () => {
    const pet = await makePet(app(), { quantity: 5 });
    const two = `mutation Two($petId: ID!) {
      a: placeOrder(input: { petId: $petId, quantity: 1 }) { id }
      b: placeOrder(input: { petId: $petId, quantity: 1 }) { id }
    }`;
    const headers = { authorization: app().authorization, 'idempotency-key': randomUUID() };
    const response = await app().fetch(
      graphqlRequest({ query: two, variables: { petId: String(pet.id) } }, headers),
    );
    expect(response.status).toBe(400);
    const body = (await response.json()) as { errors: { extensions: { code: string } }[] };
    expect(body.errors.map((error) => error.extensions.code)).toEqual(['VALIDATION_FAILED']);

    const one =
      'mutation One($petId: ID!) { placeOrder(input: { petId: $petId, quantity: 1 }) { id } }';
    const batch = await app().fetch(
      graphqlRequest(
        [
          { query: one, variables: { petId: String(pet.id) } },
          { query: one, variables: { petId: String(pet.id) } },
        ],
        headers,
      ),
    );
    expect(batch.status).toBe(400);
    expect(await app().database.prisma.order.count({ where: { petId: pet.id } })).toBe(0);
  });

  it('replays nothing a fresh request would not give: the selection’s scopes are checked again (403)', async () => {
    const pet = await makePet(app(), { quantity: 5 });
    const key = randomUUID();
    const subject = `shared-${randomUUID()}`;
    const as = async (scopes: string[]) =>
      withAuthorization(app(), `Bearer ${await app().token(scopes, { subject })}`);
    const variables = { input: { petId: String(pet.id), quantity: 1 } };
    const reader = await as(['orders:write', 'orders:read']);
    const first = await graphql(reader, PlaceOrderSeeingOrders, variables, {
      'idempotency-key': key,
    });
    expect(first.errors).toBeUndefined();
    expect(first.data?.placeOrder.pet.orders?.totalCount).toBe(1);

    // The same subject with a token that may place orders but not read them.
    const writer = await as(['orders:write']);
    const fresh = await graphql(writer, PlaceOrderSeeingOrders, variables, {
      'idempotency-key': randomUUID(),
    });
    // Sent fresh, the orders are refused to it...
    expect(fresh.data?.placeOrder.pet.orders).toBeNull();
    expect(errorCodes(fresh)).toEqual(['FORBIDDEN']);
    // ...so the replay of the first is refused to it too, and names the scope it lacks.
    const replayed = await graphql(writer, PlaceOrderSeeingOrders, variables, {
      'idempotency-key': key,
    });
    expect(replayed.status).toBe(403);
    expect(replayed.data).toBeUndefined();
    expect(errorCodes(replayed)).toEqual(['FORBIDDEN']);
    expect(replayed.errors?.[0]?.message).toMatch(/orders:read/);
    expect(replayed.headers.get('idempotent-replayed')).toBeNull();
    // Without the mutation's own scope too.
    const other = await graphql(await as(['orders:read']), PlaceOrderSeeingOrders, variables, {
      'idempotency-key': key,
    });
    expect([other.status, errorCodes(other)]).toEqual([403, ['FORBIDDEN']]);
    expect(other.errors?.[0]?.message).toMatch(/orders:write/);

    // The record is intact: a token holding both scopes still gets it, and nothing ran again.
    const again = await graphql(reader, PlaceOrderSeeingOrders, variables, {
      'idempotency-key': key,
    });
    expect(again.data).toEqual(first.data);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await app().database.prisma.order.count({ where: { petId: pet.id } })).toBe(2);
  });

  it('takes a key only from a token with a subject: anonymous or without sub is 400', async () => {
    const pet = await makePet(app(), { quantity: 5 });
    const one =
      'mutation One($petId: ID!) { placeOrder(input: { petId: $petId, quantity: 1 }) { id } }';
    const body = { query: one, variables: { petId: String(pet.id) } };
    const noSubject = `Bearer ${await app().token(undefined, { subject: null })}`;
    for (const authorization of [undefined, noSubject]) {
      const headers = {
        'idempotency-key': randomUUID(),
        ...(authorization ? { authorization } : {}),
      };
      const answer = await refusal(await app().fetch(graphqlRequest(body, headers)));
      expect(answer).toMatchObject({ status: 400, errors: [['VALIDATION_FAILED', 400]] });
      expect(answer.message).toMatch(/Idempotency-Key needs a bearer token with a subject/);
    }
    expect(await app().database.prisma.order.count({ where: { petId: pet.id } })).toBe(0);
    // On a query the key is still ignored, with or without a token.
    const query = await app().fetch(
      graphqlRequest({ query: '{ __typename }' }, { 'idempotency-key': randomUUID() }),
    );
    expect(query.status).toBe(200);
  });

  it('answers a keyed mutation with variables nested 40,000 deep as the unkeyed one: 400, not 500', async () => {
    const pet = await makePet(app(), { quantity: 5 });
    const deep = `${'['.repeat(40_000)}${']'.repeat(40_000)}`;
    const text = `{"query":"mutation Deep($input: NewOrder!) { placeOrder(input: $input) { id } }","variables":{"input":${deep}}}`;
    const send = (headers: Record<string, string>) =>
      app().fetch(
        new Request('http://petstore.test/graphql', {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/graphql-response+json',
            authorization: app().authorization,
            ...headers,
          },
          body: text,
        }),
      );
    const unkeyed = await refusal(await send({}));
    expect(unkeyed.status).toBe(400);
    const keyed = await refusal(await send({ 'idempotency-key': randomUUID() }));
    expect(keyed).toEqual(unkeyed);
    expect(await app().database.prisma.order.count({ where: { petId: pet.id } })).toBe(0);
  });

  it('ignores a key on a query', async () => {
    const pet = await makePet(app());
    const read = await graphql(
      app(),
      PetVersion,
      { id: String(pet.id) },
      { 'idempotency-key': '' },
    );
    expect(read.errors).toBeUndefined();
    expect(read.data?.pet?.version).toBe('1');
  });
});
