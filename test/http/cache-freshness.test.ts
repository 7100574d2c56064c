import fc from 'fast-check';
import { expect, it } from 'vitest';
import { describeDb, useTestApp } from '../helpers/app.js';
import { makeCategory, makePet } from '../helpers/factories.js';

const PETS = 3;

type Edge = 'graphql-get' | 'graphql-post' | 'rest';
type Target = 'pet' | 'inventory' | 'list';

type Operation =
  | {
      kind: 'write';
      edge: 'graphql' | 'rest';
      target: 'pet' | 'inventory';
      pet: number;
      delay: number;
    }
  | { kind: 'read'; edge: Edge; target: Target; pet: number; delay: number };

const operation: fc.Arbitrary<Operation> = fc.oneof(
  fc.record({
    kind: fc.constant('write' as const),
    edge: fc.constantFrom('graphql' as const, 'rest' as const),
    target: fc.constantFrom('pet' as const, 'inventory' as const),
    pet: fc.nat(PETS - 1),
    delay: fc.nat(4),
  }),
  fc.record({
    kind: fc.constant('read' as const),
    edge: fc.constantFrom('graphql-get' as const, 'graphql-post' as const, 'rest' as const),
    target: fc.constantFrom('pet' as const, 'inventory' as const, 'list' as const),
    pet: fc.nat(PETS - 1),
    delay: fc.nat(4),
  }),
);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Versions a read saw, per pet: the name's `v<n>` for pets, the quantity for inventory. */
type Seen = Map<number, number>;

describeDb('the response cache never answers older than a write that has answered', () => {
  const app = useTestApp({ RESPONSE_CACHE_TTL_MS: '60000' });

  it('holds for random interleavings of writes and reads over both edges', async () => {
    const category = await makeCategory(app());
    const pets = await Promise.all(
      Array.from({ length: PETS }, (_, index) =>
        makePet(app(), { name: `p${index} v0`, categoryId: category.id, quantity: 0 }),
      ),
    );
    const ids = pets.map((pet) => String(pet.id));
    const version = { pet: new Array(PETS).fill(0), inventory: new Array(PETS).fill(0) };

    const send = (request: Request) => app().fetch(request);
    const token = app().authorization;

    const write = async (op: Extract<Operation, { kind: 'write' }>, next: number) => {
      const id = ids[op.pet] as string;
      let response: Response;
      if (op.target === 'pet') {
        const name = `p${op.pet} v${next}`;
        response =
          op.edge === 'rest'
            ? await send(
                jsonRequest(
                  'PUT',
                  `/api/pets/${id}`,
                  { name, categoryId: Number(category.id) },
                  token,
                ),
              )
            : await send(
                jsonRequest(
                  'POST',
                  '/graphql',
                  {
                    query:
                      'mutation ($id: ID!, $input: NewPet!) { updatePet(id: $id, input: $input) { id } }',
                    variables: { id, input: { name, categoryId: String(category.id) } },
                  },
                  token,
                ),
              );
      } else {
        response =
          op.edge === 'rest'
            ? await send(
                jsonRequest('PUT', `/api/store/inventory/${id}`, { quantity: next }, token),
              )
            : await send(
                jsonRequest(
                  'POST',
                  '/graphql',
                  {
                    query:
                      'mutation ($id: ID!, $q: Int!) { updateInventory(petId: $id, input: { quantity: $q }) { petId } }',
                    variables: { id, q: next },
                  },
                  token,
                ),
              );
      }
      const text = await response.text();
      expect(response.status, text).toBe(200);
      expect(text).not.toContain('"errors"');
    };

    const read = async (op: Extract<Operation, { kind: 'read' }>): Promise<Seen> => {
      const id = ids[op.pet] as string;
      const seen: Seen = new Map();
      const petIndex = (petId: string) => ids.indexOf(petId);
      const sawName = (petId: string, name: string) =>
        seen.set(petIndex(petId), Number(/v(\d+)$/.exec(name)?.[1]));
      if (op.edge === 'rest') {
        const path =
          op.target === 'pet'
            ? `/api/pets/${id}`
            : op.target === 'inventory'
              ? `/api/store/inventory/${id}`
              : `/api/pets?categoryId=${category.id}`;
        const response = await send(new Request(`http://petstore.test${path}`));
        expect(response.status).toBe(200);
        const body = (await response.json()) as
          | { id: number; name: string }
          | { petId: number; quantity: number }
          | { id: number; name: string }[];
        if (Array.isArray(body)) for (const pet of body) sawName(String(pet.id), pet.name);
        else if ('quantity' in body) seen.set(petIndex(String(body.petId)), body.quantity);
        else sawName(String(body.id), body.name);
        return seen;
      }
      const query =
        op.target === 'pet'
          ? 'query ($id: ID!) { pet(id: $id) { id name } }'
          : op.target === 'inventory'
            ? 'query ($id: ID!) { inventory(petId: $id) { petId quantity } }'
            : 'query ($id: ID!) { category(id: $id) { pets(first: 10) { edges { node { id name } } } } }';
      const variables = { id: op.target === 'list' ? String(category.id) : id };
      const response =
        op.edge === 'graphql-get'
          ? await send(
              new Request(
                `http://petstore.test/graphql?${new URLSearchParams({ query, variables: JSON.stringify(variables) })}`,
              ),
            )
          : await send(jsonRequest('POST', '/graphql', { query, variables }));
      const { data } = (await response.json()) as {
        data: {
          pet?: { id: string; name: string };
          inventory?: { petId: string; quantity: number };
          category?: { pets: { edges: { node: { id: string; name: string } }[] } };
        };
      };
      if (data.pet) sawName(data.pet.id, data.pet.name);
      if (data.inventory) seen.set(petIndex(data.inventory.petId), data.inventory.quantity);
      for (const { node } of data.category?.pets.edges ?? []) sawName(node.id, node.name);
      return seen;
    };

    await fc.assert(
      fc.asyncProperty(fc.array(operation, { minLength: 5, maxLength: 40 }), async (operations) => {
        // Writes to one pet's row run one after another, so their versions commit in order.
        const chains = new Map<string, Promise<void>>();
        /** When each write answered, with the version it wrote. */
        const answered: {
          target: 'pet' | 'inventory';
          pet: number;
          version: number;
          at: number;
        }[] = [];
        const reads: { op: Operation; startedAt: number; seen: Seen; target: Target }[] = [];
        let elapsed = 0;
        await Promise.all(
          operations.map(async (op) => {
            elapsed += op.delay;
            await sleep(elapsed);
            if (op.kind === 'write') {
              const key = `${op.target}:${op.pet}`;
              const chain = (chains.get(key) ?? Promise.resolve()).then(async () => {
                version[op.target][op.pet] += 1;
                const next = version[op.target][op.pet] as number;
                await write(op, next);
                answered.push({
                  target: op.target,
                  pet: op.pet,
                  version: next,
                  at: performance.now(),
                });
              });
              chains.set(key, chain);
              await chain;
            } else {
              const startedAt = performance.now();
              reads.push({ op, startedAt, seen: await read(op), target: op.target });
            }
          }),
        );
        for (const { op, startedAt, seen, target } of reads) {
          const kind = target === 'inventory' ? 'inventory' : 'pet';
          for (const [pet, saw] of seen) {
            const latest = Math.max(
              0,
              ...answered
                .filter((w) => w.target === kind && w.pet === pet && w.at < startedAt)
                .map((w) => w.version),
            );
            expect(saw, `${JSON.stringify(op)} saw pet ${pet} at ${saw}`).toBeGreaterThanOrEqual(
              latest,
            );
          }
        }
      }),
      { numRuns: 25 },
    );
  });
});

function jsonRequest(method: string, path: string, body: unknown, authorization?: string) {
  return new Request(`http://petstore.test${path}`, {
    method,
    headers: {
      'content-type': 'application/json',
      ...(authorization ? { authorization } : {}),
    },
    body: JSON.stringify(body),
  });
}

describeDb('a read racing a write', () => {
  const app = useTestApp({ RESPONSE_CACHE_TTL_MS: '60000' });

  it('is not stored when the write evicted while it ran (else later reads would see it)', async () => {
    const category = await makeCategory(app());
    const pets = [];
    for (let index = 0; index < 60; index++)
      pets.push(await makePet(app(), { name: `v0`, categoryId: category.id }));
    const target = pets[0] as (typeof pets)[number];
    const query = `query ($id: ID!) { category(id: $id) { pets(first: 100) { edges { node { id name status category { name } inventory { quantity } } } } } }`;
    const readFirstName = async () => {
      const response = await app().fetch(
        jsonRequest('POST', '/graphql', { query, variables: { id: String(category.id) } }),
      );
      const body = (await response.json()) as {
        data: { category: { pets: { edges: { node: { name: string } }[] } } };
      };
      return body.data.category.pets.edges[0]?.node.name;
    };
    for (let round = 1; round <= 30; round++) {
      // The read starts first and misses (the previous write evicted it); the write lands while it runs.
      const racing = readFirstName();
      const written = app().fetch(
        jsonRequest(
          'PUT',
          `/api/pets/${target.id}`,
          { name: `v${round}`, categoryId: Number(category.id) },
          app().authorization,
        ),
      );
      await Promise.all([racing, written.then((response) => response.text())]);
      expect(await readFirstName()).toBe(`v${round}`);
    }
  });
});
