import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import pg from 'pg';
import { migrate } from '../src/db/migrate.js';
import { sample, seededRandom } from './random.js';

/** The benchmark database and the values the scenarios draw their requests from. */
export interface Fixture {
  /** `sqlite` or `postgresql`. */
  readonly database: BenchDatabase;
  /** The product's DATABASE_URL for this database (the baseline reads the same one). */
  readonly url: string;
  readonly pets: number;
  /** Distinct pet ids in a shuffled order, for point reads. */
  readonly readIds: number[];
  /** Pet ids to continue after (GraphQL `after` cursors), spread over the whole table. */
  readonly afterIds: number[];
  /** REST `offset` values, spread over the whole table. */
  readonly offsets: number[];
  /** Available pets with plenty of stock, for `placeOrder`. */
  readonly orderPetIds: number[];
  /**
   * Compares the stock of the `placeOrder` pets with the orders placed since the fixture was made:
   * the units missing from stock that no new order accounts for (0 unless something oversold).
   */
  unaccountedUnits(): Promise<number>;
  /** Deletes the database (the file, or the PostgreSQL schema). */
  drop(): Promise<void>;
}

export type BenchDatabase = 'sqlite' | 'postgresql';

/** The PostgreSQL server the bench uses unless `BENCH_POSTGRES_URL` names another. */
export const DEFAULT_POSTGRES_URL = 'postgresql://postgres@127.0.0.1:5432/test';

/** Where a run's bench database goes: a SQLite file in `dir`, or `BENCH_POSTGRES_URL`'s server. */
export function benchTarget(database: BenchDatabase, dir: string): FixtureOptions['target'] {
  return database === 'sqlite'
    ? { database, file: join(dir, 'bench.db') }
    : { database, url: process.env.BENCH_POSTGRES_URL ?? DEFAULT_POSTGRES_URL };
}

export interface FixtureOptions {
  /** A SQLite file path, or a PostgreSQL URL (the fixture makes a schema of its own in it). */
  target: { database: 'sqlite'; file: string } | { database: 'postgresql'; url: string };
  pets: number;
  seed?: number;
}

const categoryNames = [
  'Dogs',
  'Cats',
  'Birds',
  'Fish',
  'Reptiles',
  'Rabbits',
  'Rodents',
  'Amphibians',
  'Insects',
  'Horses',
  'Ferrets',
  'Exotics',
];

// A few names need JSON escaping or are not ASCII, so byte-for-byte comparisons mean something.
const petNames = [
  'Rex',
  'Bella',
  'Max',
  'Luna',
  'Charlie',
  'Daisy',
  'Rocky',
  'Molly',
  'Milo',
  'Cleo',
  'Oliver',
  'Nala',
  'Simba',
  'Willow',
  'Kiwi',
  'Mango',
  'Nemo',
  'Bubbles',
  'Spike',
  'Shelly',
  'Zoë',
  'Léo',
  'Mochi 🐾',
  '"Lucky" Jr.',
  'Back\\slash',
];

const POINT_READ_IDS = 2_000;
const LIST_STARTS = 500;
const ORDER_PETS = 1_000;
const PAGE = 100;

interface Rows {
  categories: [id: number, name: string, nameKey: string, description: string][];
  pets: [id: number, name: string, categoryId: number, status: string][];
  stock: [petId: number, quantity: number][];
  orders: [petId: number, quantity: number, shipDate: Date, complete: boolean][];
}

/** The fixture's rows, drawn from a seeded generator: the same on every database. */
function generate(pets: number, random: () => number) {
  const rows: Rows = { categories: [], pets: [], stock: [], orders: [] };
  const available: number[] = [];
  categoryNames.forEach((name, index) => {
    const description = `${name} of many kinds, raised by trusted breeders and checked by our vets before they meet their new families.`;
    rows.categories.push([index + 1, name, name.toLowerCase(), description]);
  });
  for (let id = 1; id <= pets; id++) {
    const draw = random();
    const status = draw < 0.85 ? 'available' : draw < 0.93 ? 'pending' : 'sold';
    const name = petNames[Math.floor(random() * petNames.length)] as string;
    rows.pets.push([id, name, 1 + Math.floor(random() * categoryNames.length), status]);
    rows.stock.push([id, status === 'sold' ? 0 : 100_000 + Math.floor(random() * 900_000)]);
    if (status === 'available') available.push(id);
    if (random() < 0.3) {
      const shipDate = new Date(Date.UTC(2026, 10, 1 + Math.floor(random() * 60)));
      rows.orders.push([id, 1 + Math.floor(random() * 3), shipDate, random() < 0.5]);
    }
  }
  return { rows, available };
}

/**
 * Creates the benchmark database: migrated with the product's own migrations, then filled in one
 * transaction with `pets` pets (every one with its inventory item) in a dozen categories, and
 * orders for about a third of them. Most pets are available with a large stock, so `placeOrder`
 * can run for minutes without selling out. The same options give the same rows on either database.
 */
export async function createFixture({ target, pets, seed = 6 }: FixtureOptions): Promise<Fixture> {
  const random = seededRandom(seed);
  const { rows, available } = generate(pets, random);
  const ids = Array.from({ length: pets }, (_, index) => index + 1);
  const starts = Array.from({ length: Math.max(1, pets - PAGE) }, (_, index) => index + 1);
  const draws = {
    pets,
    readIds: sample(ids, POINT_READ_IDS, random),
    afterIds: sample(starts, LIST_STARTS, random),
    offsets: sample(starts, LIST_STARTS, random).map((start) => start - 1),
    orderPetIds: sample(available, ORDER_PETS, random),
  };
  const stockOf = new Map(rows.stock);
  const initialStock = draws.orderPetIds.map((id) => [id, stockOf.get(id) ?? 0] as const);
  const store =
    target.database === 'sqlite'
      ? await fillSqlite(target.file, rows)
      : await fillPostgres(target.url, rows);
  return {
    ...draws,
    database: target.database,
    url: store.url,
    drop: store.drop,
    async unaccountedUnits() {
      const now = new Map(await store.stockAndNewOrders(draws.orderPetIds, rows.orders.length));
      let missing = 0;
      for (const [id, before] of initialStock) {
        const { quantity, ordered } = now.get(id) ?? { quantity: before, ordered: 0 };
        missing += Math.abs(before - quantity - ordered) + Math.max(0, -quantity);
      }
      return missing;
    },
  };
}

interface FilledStore {
  url: string;
  /** Per pet: its stock now, and the units of the orders after the first `knownOrders`. */
  stockAndNewOrders(
    petIds: number[],
    knownOrders: number,
  ): Promise<[number, { quantity: number; ordered: number }][]>;
  drop(): Promise<void>;
}

async function fillSqlite(file: string, rows: Rows): Promise<FilledStore> {
  const url = `file:${file}`;
  await migrate({ provider: 'sqlite', url, file });
  const db = new Sqlite(file);
  try {
    const insertCategory = db.prepare(
      'INSERT INTO "Category" ("id", "name", "nameKey", "description") VALUES (?, ?, ?, ?)',
    );
    const insertPet = db.prepare(
      'INSERT INTO "Pet" ("id", "name", "categoryId", "status") VALUES (?, ?, ?, ?)',
    );
    const insertStock = db.prepare(
      'INSERT INTO "InventoryItem" ("petId", "quantity") VALUES (?, ?)',
    );
    const insertOrder = db.prepare(
      'INSERT INTO "Order" ("petId", "quantity", "shipDate", "complete") VALUES (?, ?, ?, ?)',
    );
    db.transaction(() => {
      for (const row of rows.categories) insertCategory.run(...row);
      for (const row of rows.pets) insertPet.run(...row);
      for (const row of rows.stock) insertStock.run(...row);
      for (const [petId, quantity, shipDate, complete] of rows.orders) {
        insertOrder.run(petId, quantity, isoDate(shipDate), complete ? 1 : 0);
      }
    })();
  } finally {
    db.close();
  }
  return {
    url,
    async stockAndNewOrders(petIds, knownOrders) {
      const reader = new Sqlite(file, { readonly: true });
      try {
        const stock = reader.prepare<[number], { quantity: number }>(
          'SELECT "quantity" FROM "InventoryItem" WHERE "petId" = ?',
        );
        const ordered = reader.prepare<[number, number], { units: number | null }>(
          'SELECT sum("quantity") AS units FROM "Order" WHERE "petId" = ? AND "id" > ?',
        );
        return petIds.map((id) => [
          id,
          {
            quantity: stock.get(id)?.quantity ?? 0,
            ordered: ordered.get(id, knownOrders)?.units ?? 0,
          },
        ]);
      } finally {
        reader.close();
      }
    },
    drop: () =>
      Promise.all(
        ['', '-wal', '-shm', '-journal'].map((end) => rm(file + end, { force: true })),
      ).then(() => {}),
  };
}

async function fillPostgres(baseUrl: string, rows: Rows): Promise<FilledStore> {
  const schema = `bench_${randomBytes(6).toString('hex')}`;
  const url = new URL(baseUrl);
  url.searchParams.set('schema', schema);
  await migrate({
    provider: 'postgresql',
    url: url.toString(),
    schema,
    poolSize: 1,
    statementCacheSize: 0,
  });
  const connect = async () => {
    const client = new pg.Client({
      connectionString: baseUrl,
      options: `-c search_path="${schema}"`,
    });
    await client.connect();
    return client;
  };
  const client = await connect();
  const columns = <T extends unknown[]>(list: T[]) =>
    list[0] ? list[0].map((_, index) => list.map((row) => row[index])) : [];
  try {
    await client.query('BEGIN');
    await client.query(
      `INSERT INTO "Category" ("id", "name", "nameKey", "description")
       SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[])`,
      columns(rows.categories),
    );
    await client.query(
      `INSERT INTO "Pet" ("id", "name", "categoryId", "status")
       SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::"PetStatus"[])`,
      columns(rows.pets),
    );
    await client.query(
      `INSERT INTO "InventoryItem" ("petId", "quantity")
       SELECT * FROM unnest($1::bigint[], $2::integer[])`,
      columns(rows.stock),
    );
    await client.query(
      `INSERT INTO "Order" ("petId", "quantity", "shipDate", "complete")
       SELECT * FROM unnest($1::bigint[], $2::integer[], $3::timestamp(3)[], $4::boolean[])`,
      columns(
        rows.orders.map(([petId, quantity, shipDate, complete]) => [
          petId,
          quantity,
          shipDate.toISOString(),
          complete,
        ]),
      ),
    );
    // The ids above were explicit: new rows continue after them.
    for (const table of ['Category', 'Pet', 'Order']) {
      await client.query(
        `SELECT setval(pg_get_serial_sequence('"${table}"', 'id'), (SELECT max("id") FROM "${table}"))`,
      );
    }
    await client.query('COMMIT');
    await client.query('ANALYZE');
  } finally {
    await client.end();
  }
  return {
    url: url.toString(),
    async stockAndNewOrders(petIds, knownOrders) {
      const reader = await connect();
      try {
        const { rows: found } = await reader.query<{
          id: string;
          quantity: number;
          ordered: string | null;
        }>(
          `SELECT i."petId" AS id, i."quantity",
                  (SELECT sum(o."quantity") FROM "Order" o WHERE o."petId" = i."petId" AND o."id" > $2) AS ordered
             FROM "InventoryItem" i WHERE i."petId" = ANY($1::bigint[])`,
          [petIds, knownOrders],
        );
        return found.map((row) => [
          Number(row.id),
          { quantity: row.quantity, ordered: Number(row.ordered ?? 0) },
        ]);
      } finally {
        await reader.end();
      }
    },
    async drop() {
      const admin = new pg.Client({ connectionString: baseUrl });
      await admin.connect();
      try {
        await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      } finally {
        await admin.end();
      }
    },
  };
}

/** DateTime as the Prisma SQLite adapter writes it (ISO 8601 with an explicit offset). */
function isoDate(date: Date): string {
  return date.toISOString().replace('Z', '+00:00');
}
