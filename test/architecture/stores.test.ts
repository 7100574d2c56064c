import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sourceFiles, src } from './source-files.js';

/**
 * A resource's store (`src/<resource>/store.ts`) is the only code that reads or writes its tables
 * through Prisma's client, and answers outcomes rather than database codes: outside `src/db/`
 * (the client, seeding, the public reads by id that concurrent requests share), no other file
 * calls a model's queries, no store calls another resource's, and no resource names a Prisma
 * error code. (Raw SQL is not checked: an order's placement is the one statement that crosses
 * tables, documented in src/orders/README.md.)
 */
const ownModel: Record<string, string> = {
  'pets/store.ts': 'pet',
  'categories/store.ts': 'category',
  'orders/store.ts': 'order',
  'inventory/store.ts': 'inventoryItem',
};

/** A call of a model's query on Prisma's client (`db.pet.findMany(`), not a loader's `.load(`. */
const modelQuery =
  /\.(pet|category|order|inventoryItem)\.(?:find|create|update|delete|upsert|count|groupBy|aggregate)\w*\(/g;
const prismaCode = /\bP[0-9]{4}\b/;
const resource = /^(pets|categories|orders|inventory)\//;

const files = sourceFiles()
  .map((file) => ({ path: relative(src, file), text: readFileSync(file, 'utf8') }))
  .filter(({ path }) => !path.startsWith('db/'));

describe('the stores', () => {
  it('are the only code that queries a model, each its own', () => {
    const elsewhere = files.flatMap(({ path, text }) =>
      [...text.matchAll(modelQuery)]
        .filter((match) => match[1] !== ownModel[path])
        .map((match) => `${path}: ${match[0]}`),
    );
    expect(elsewhere).toEqual([]);
  });

  it('answer outcomes: no resource names a database error code', () => {
    const named = files
      .filter(({ path, text }) => resource.test(path) && prismaCode.test(text))
      .map(({ path }) => path);
    expect(named).toEqual([]);
  });
});
