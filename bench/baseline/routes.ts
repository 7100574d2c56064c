import { cursorOf, petById, petsPage } from '../documents.js';
import type { PetRow, Store } from './store.js';

/**
 * The physical limit: for each benchmark scenario, the least work that produces the product's
 * exact bytes. No framework, no GraphQL parsing (operations are recognised by their text), no
 * validation beyond what keeps the SQL safe.
 */
export interface Reply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const GRAPHQL_JSON = { 'content-type': 'application/json; charset=utf-8' };
const JSON_TYPE = { 'content-type': 'application/json' };
// The product marks this route deprecated; the baseline sends the same headers.
const DEPRECATED = {
  ...JSON_TYPE,
  deprecation: '@1795219200',
  sunset: 'Wed, 30 Jun 2027 00:00:00 GMT',
  link: '</graphql>; rel="successor-version"',
};
const PAGE = 100;

const badRequest: Reply = { status: 400, headers: JSON_TYPE, body: '{"error":"bad request"}' };
const notFound: Reply = { status: 404, headers: JSON_TYPE, body: '{"error":"not found"}' };

function idFrom(value: unknown): bigint | undefined {
  return typeof value === 'string' && /^[0-9]{1,19}$/.test(value) ? BigInt(value) : undefined;
}

/** REST JSON writes ids as JSON numbers with every digit, so it is assembled by hand. */
function restPet(pet: PetRow): string {
  return `{"id":${pet.id},"name":${JSON.stringify(pet.name)},"categoryId":${pet.categoryId},"status":${JSON.stringify(pet.status)}}`;
}

/** With the product's cost report (the budget is off in the bench: no throttleStatus). */
function graphql(data: unknown, requested: number, actual: number): Reply {
  const cost = { requestedQueryCost: requested, actualQueryCost: actual };
  return {
    status: 200,
    headers: GRAPHQL_JSON,
    body: JSON.stringify({ data, extensions: { cost } }),
  };
}

export function createRoutes(store: Store) {
  const operations = new Map<string, (variables: Record<string, unknown>) => Promise<Reply>>([
    [
      petById,
      async (variables) => {
        const id = idFrom(variables.id);
        if (id === undefined) return badRequest;
        const pet = await store.pet(id);
        return graphql(
          {
            pet: pet
              ? {
                  id: String(pet.id),
                  name: pet.name,
                  categoryId: String(pet.categoryId),
                  status: pet.status,
                }
              : null,
          },
          1,
          1,
        );
      },
    ],
    [
      petsPage,
      async (variables) => {
        const after =
          variables.after == null
            ? 0n
            : idFrom(Buffer.from(String(variables.after), 'base64url').toString());
        if (after === undefined) return badRequest;
        const rows = await store.petsAfter(after, PAGE + 1);
        const page = rows.slice(0, PAGE);
        const last = page.at(-1);
        return graphql(
          {
            pets: {
              edges: page.map((row) => ({
                node: {
                  id: String(row.id),
                  name: row.name,
                  status: row.status,
                  category: { name: row.categoryName },
                  inventory: { quantity: Number(row.quantity) },
                },
              })),
              pageInfo: {
                hasNextPage: rows.length > PAGE,
                endCursor: last ? cursorOf(BigInt(last.id)) : null,
              },
            },
          },
          // pets + pageInfo, and each of the 100 edges with its node, category and inventory.
          2 + 4 * PAGE,
          2 + 4 * page.length,
        );
      },
    ],
  ]);

  async function graphqlPost(body: string): Promise<Reply> {
    let request: { query?: unknown; variables?: Record<string, unknown> };
    try {
      request = JSON.parse(body);
    } catch {
      return badRequest;
    }
    const operation = typeof request.query === 'string' ? operations.get(request.query) : undefined;
    return operation ? await operation(request.variables ?? {}) : badRequest;
  }

  async function restPetById(rawId: string): Promise<Reply> {
    const id = idFrom(rawId);
    if (id === undefined) return badRequest;
    const pet = await store.pet(id);
    if (!pet) {
      const body = `{"code":"PET_NOT_FOUND","message":"Pet ${id} does not exist","status":404}`;
      return { status: 404, headers: JSON_TYPE, body };
    }
    return { status: 200, headers: DEPRECATED, body: restPet(pet) };
  }

  async function restPets(query: URLSearchParams): Promise<Reply> {
    const limit = Number(query.get('limit') ?? 20);
    const offset = Number(query.get('offset') ?? 0);
    const valid =
      Number.isInteger(limit) && limit >= 1 && limit <= PAGE && Number.isSafeInteger(offset);
    if (!valid || offset < 0) return badRequest;
    const [pets, total] = await Promise.all([store.petsPage(limit, offset), store.petCount()]);
    return {
      status: 200,
      headers: { ...JSON_TYPE, 'x-total-count': String(total) },
      body: `[${pets.map(restPet).join(',')}]`,
    };
  }

  /** Routes one request; `body` is the raw request body (POST only). */
  return async function route(method: string, url: string, body: string): Promise<Reply> {
    if (method === 'POST' && url === '/graphql') return graphqlPost(body);
    if (method !== 'GET') return notFound;
    const [path = '', search = ''] = url.split('?', 2);
    if (path === '/api/pets') return restPets(new URLSearchParams(search));
    if (path.startsWith('/api/pets/')) return restPetById(path.slice('/api/pets/'.length));
    return notFound;
  };
}
