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
 * The REST floor: a bare Hono app with the two routes the bench measures, each doing the product's
 * read (the shared reads by id; the domain's list and count for a page) and writing the product's
 * JSON (presentPet, stringifyJson). No middleware, no validation schemas, no OpenAPI, no auth, no
 * deprecation or cache headers. The bench sends only valid requests; anything else is Hono's
 * default 404 or 500.
 */
export function createRestFloor({ database, shared }: RestFloorOptions) {
  const domain = {
    db: database.prisma,
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
