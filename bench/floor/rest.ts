import { randomUUID } from 'node:crypto';
import { Hono } from 'hono';
import {
  anonymous,
  countPets,
  type Database,
  listPets,
  pageOf,
  parseId,
  presentPet,
  readOnly,
  type SharedReads,
  stringifyJson,
} from './product-parts.js';

export interface RestFloorOptions {
  database: Database;
  /** The product's coalesced reads by id, one instance per process as in the product. */
  shared: SharedReads;
}

const JSON_TYPE = { 'content-type': 'application/json; charset=utf-8' };

/**
 * The path under which the floor answers a pet by id with the headers the contract asks of the
 * product's answer (`/contract/api/pets/{id}`).
 */
export const CONTRACT_PREFIX = '/contract';

/**
 * The six headers the contract adds to the product's answer to `GET /api/pets/{id}`, values alike:
 * the version as `ETag`, the public `Cache-Control`, a request id, and the deprecated route's
 * `Deprecation`, `Sunset` and `Link` (constants here).
 */
function contractHeaders(id: bigint, version: number): Record<string, string> {
  // Written out whole: after a spread, V8 defined the properties that follow in its runtime at every
  // call (about 30,000 instructions, a tenth of this route's request; bench/rounds.md in git history, the
  // twenty-second round).
  return {
    'content-type': JSON_TYPE['content-type'],
    etag: `"${version}"`,
    'cache-control': 'no-cache',
    'x-request-id': randomUUID(),
    deprecation: '@1795219200',
    sunset: 'Wed, 30 Jun 2027 00:00:00 GMT',
    link: '</graphql>; rel="successor-version"',
    // What a CDN may keep it by (src/edge-cache/).
    'surrogate-key': `pet:${id}`,
    'cache-tag': `pet:${id}`,
  };
}

/**
 * The REST floor: a bare Hono app with the two routes the bench measures, each doing the product's
 * read (the shared reads by id; the domain's list and count for a page) and writing the product's
 * JSON (presentPet, stringifyJson). No middleware, no validation schemas, no OpenAPI, no auth, no
 * deprecation or cache headers, but for a third route that answers a pet by id with them
 * (`CONTRACT_PREFIX`). The bench sends only valid requests; anything else is Hono's default 404 or
 * 500.
 */
export function createRestFloor({ database, shared }: RestFloorOptions) {
  const domain = {
    db: database.prisma,
    sql: database,
    dialect: database.dialect,
    viewer: anonymous,
    changes: readOnly,
  };
  const app = new Hono();
  app.get('/api/pets/:petId', async (c) => {
    const id = parseId(c.req.param('petId'), 'petId');
    const pet = await shared.pets.load(id);
    if (!pet) {
      const body = { code: 'PET_NOT_FOUND', message: `Pet ${id} does not exist`, status: 404 };
      return c.body(stringifyJson(body), 404, JSON_TYPE);
    }
    return c.body(stringifyJson(presentPet(pet)), 200, JSON_TYPE);
  });
  // The same read, answered with the contract's headers as a plain answer, the product's own kind
  // (Hono's `c.body` would build a web `Headers` for more than one header).
  app.get(`${CONTRACT_PREFIX}/api/pets/:petId`, async (c) => {
    const id = parseId(c.req.param('petId'), 'petId');
    const pet = await shared.pets.load(id);
    if (!pet) return c.notFound();
    const body = stringifyJson(presentPet(pet));
    return new Response(body, { status: 200, headers: contractHeaders(id, pet.version) });
  });
  app.get('/api/pets', async (c) => {
    const page = pageOf({ limit: c.req.query('limit'), offset: c.req.query('offset') });
    const [rows, total] = await Promise.all([listPets(domain, {}, page), countPets(domain, {})]);
    return c.body(stringifyJson(rows.map(presentPet)), 200, {
      ...JSON_TYPE,
      'x-total-count': String(total),
    });
  });
  return app;
}
