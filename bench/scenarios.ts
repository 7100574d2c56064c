import { cursorOf, petById, petsPage, placeOrder } from './documents.js';
import type { Fixture } from './fixture.js';
import { CONTRACT_PREFIX } from './floor/rest.js';
import type { HttpRequest, HttpResponse } from './http.js';
import type { FloorKind } from './processes.js';

export interface Scenario {
  /** Key for `--only` and the JSON report. */
  readonly name: string;
  readonly title: string;
  /** False for scenarios measured on the product alone (absolute figures, no ratio). */
  readonly baseline: boolean;
  /**
   * The framework floor the scenario is also measured on (bare Yoga or bare Hono serving the
   * product's schema and reads, bench/floor/); none for writes.
   */
  readonly floor?: FloorKind;
  /** Writes stock: after the runs the fixture checks that every unit taken was ordered. */
  readonly writes?: boolean;
  /**
   * Runs against a second product process with the response cache on (RESPONSE_CACHE_TTL_MS
   * default); every other scenario runs with the cache off, so its figures stay uncached.
   */
  readonly cached?: boolean;
  /** The requests a run cycles through. */
  requests(fixture: Fixture, token: string): HttpRequest[];
  /**
   * What the product is also compared with, on the same product process or on a floor's: its
   * requests run in alternation with the others, round by round, so that the ratio comes from
   * neighbouring runs as product ÷ floor does.
   */
  readonly reference?: Reference;
  /** Throws unless the response is a correct answer to the request (checked before timing). */
  check(request: HttpRequest, response: HttpResponse, fixture: Fixture): void;
}

export interface Reference {
  /** What it is, in the report. */
  readonly name: string;
  /** The floor that answers it; the product itself when absent. */
  readonly floor?: FloorKind;
  requests(fixture: Fixture, token: string): HttpRequest[];
}

const PAGE = 100;

function graphqlPost(query: string, variables: object, token?: string): HttpRequest {
  return {
    method: 'POST',
    path: '/graphql',
    headers: {
      'content-type': 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify({ query, variables }),
  };
}

function variablesOf(request: HttpRequest): Record<string, unknown> {
  return (JSON.parse(request.body ?? '{}') as { variables: Record<string, unknown> }).variables;
}

function ensure(condition: boolean, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

function json(response: HttpResponse): unknown {
  ensure(response.status === 200, `status ${response.status}: ${response.body.slice(0, 300)}`);
  return JSON.parse(response.body);
}

interface GraphQLBody<Data> {
  data?: Data;
  errors?: unknown[];
}

function graphqlData<Data>(response: HttpResponse): Data {
  const body = json(response) as GraphQLBody<Data>;
  ensure(!body.errors && body.data !== undefined, `GraphQL errors: ${response.body.slice(0, 300)}`);
  return body.data;
}

interface PetNode {
  id: string;
  name: string;
  status: string;
  category: { name: string };
  inventory: { quantity: number };
}

interface RestPet {
  id: number;
  name: string;
  categoryId: number;
  status: string;
}

function checkRestPet(pet: RestPet | undefined, id: number) {
  ensure(pet?.id === id, `expected pet ${id}, got ${JSON.stringify(pet)}`);
  ensure(typeof pet.name === 'string' && typeof pet.categoryId === 'number', 'incomplete pet');
}

export const scenarios: Scenario[] = [
  {
    name: 'graphql-pet',
    title: 'GraphQL pet(id)',
    baseline: true,
    floor: 'graphql',
    requests: (fixture) => fixture.readIds.map((id) => graphqlPost(petById, { id: String(id) })),
    check(request, response) {
      const { pet } = graphqlData<{ pet: { id: string } | null }>(response);
      ensure(pet?.id === variablesOf(request).id, `wrong pet: ${response.body}`);
    },
  },
  {
    name: 'graphql-pets',
    title: 'GraphQL pets(first: 100) with category and inventory',
    baseline: true,
    floor: 'graphql',
    requests: (fixture) =>
      fixture.afterIds.map((after) => graphqlPost(petsPage, { after: cursorOf(after) })),
    check(request, response, fixture) {
      const { pets } = graphqlData<{ pets: { edges: { node: PetNode }[] } }>(response);
      // The request's cursor was written for one of these ids (the product's encoding, unread here).
      const cursor = variablesOf(request).after;
      const after = fixture.afterIds.find((id) => cursorOf(id) === cursor);
      ensure(after !== undefined, `no fixture id has the cursor ${String(cursor)}`);
      const expected = Math.min(PAGE, fixture.pets - after);
      ensure(pets.edges.length === expected, `expected ${expected} pets`);
      for (const [index, { node }] of pets.edges.entries()) {
        ensure(node.id === String(after + index + 1), `pet ${index} out of order`);
        ensure(typeof node.category.name === 'string', 'category missing');
        ensure(typeof node.inventory.quantity === 'number', 'inventory missing');
      }
    },
  },
  {
    name: 'rest-pet',
    title: 'REST GET /api/pets/{id}',
    baseline: true,
    floor: 'rest',
    requests: (fixture) =>
      fixture.readIds.map((id) => ({ method: 'GET', path: `/api/pets/${id}` })),
    // The REST floor sends `content-type` alone; the contract asks six more headers of this answer.
    reference: {
      name: "the REST floor with the contract's headers",
      floor: 'rest',
      requests: (fixture) =>
        fixture.readIds.map((id) => ({ method: 'GET', path: `${CONTRACT_PREFIX}/api/pets/${id}` })),
    },
    check(request, response) {
      checkRestPet(json(response) as RestPet, Number(request.path.split('/').at(-1)));
    },
  },
  {
    name: 'rest-pets',
    title: 'REST GET /api/pets?limit=100&offset=…',
    baseline: true,
    floor: 'rest',
    requests: (fixture) =>
      fixture.offsets.map((offset) => ({
        method: 'GET',
        path: `/api/pets?limit=${PAGE}&offset=${offset}`,
      })),
    check(request, response, fixture) {
      const pets = json(response) as RestPet[];
      const offset = Number(new URL(request.path, 'http://bench').searchParams.get('offset'));
      ensure(pets.length === Math.min(PAGE, fixture.pets - offset), 'wrong page size');
      for (const [index, pet] of pets.entries()) checkRestPet(pet, offset + index + 1);
      const total = response.headers.get('x-total-count');
      ensure(total === String(fixture.pets), `X-Total-Count ${total}, expected ${fixture.pets}`);
    },
  },
  {
    name: 'place-order',
    title: 'GraphQL placeOrder (writes; no baseline)',
    baseline: false,
    writes: true,
    requests: (fixture, token) =>
      fixture.orderPetIds.map((petId) =>
        graphqlPost(placeOrder, { input: { petId: String(petId), quantity: 1 } }, token),
      ),
    check(request, response) {
      const { placeOrder: order } = graphqlData<{
        placeOrder: { petId: string; quantity: number; complete: boolean };
      }>(response);
      const { input } = variablesOf(request) as { input: { petId: string } };
      ensure(order.petId === input.petId && order.quantity === 1, `wrong order: ${response.body}`);
    },
  },
];

/**
 * `placeOrder` with an `Idempotency-Key`, against the same without in alternating runs: the load
 * generator makes each request's key unique (bench/load.ts), since the same key again would
 * measure a replay.
 */
const placeOrderScenario = scenarios.find(
  (scenario) => scenario.name === 'place-order',
) as Scenario;
scenarios.push({
  ...placeOrderScenario,
  name: 'place-order-keyed',
  title: 'GraphQL placeOrder with an Idempotency-Key (writes; no baseline)',
  requests: (fixture, token) =>
    placeOrderScenario.requests(fixture, token).map((order, index) => ({
      ...order,
      headers: { ...order.headers, 'idempotency-key': `bench-${index}` },
    })),
  reference: { name: 'place-order on the same process', requests: placeOrderScenario.requests },
});

/** The same reads, answered by a product with the response cache on (repeats hit the cache). */
const cachedScenario = (name: string, title: string): Scenario => {
  const uncached = scenarios.find((scenario) => scenario.name === name) as Scenario;
  return {
    ...uncached,
    name: `${name}-cached`,
    title: `${title}, response cache on`,
    cached: true,
  };
};

scenarios.push(
  cachedScenario('graphql-pet', 'GraphQL pet(id)'),
  cachedScenario('graphql-pets', 'GraphQL pets(first: 100)'),
);
