import Sqlite from 'better-sqlite3';
import { migrate } from '../src/db/migrate.js';
import { sample, seededRandom } from './random.js';

/** The benchmark database and the values the scenarios draw their requests from. */
export interface Fixture {
  readonly file: string;
  readonly pets: number;
  /** Distinct pet ids in a shuffled order, for point reads. */
  readonly readIds: number[];
  /** Pet ids to continue after (GraphQL `after` cursors), spread over the whole table. */
  readonly afterIds: number[];
  /** REST `offset` values, spread over the whole table. */
  readonly offsets: number[];
  /** Available pets with plenty of stock, for `placeOrder`. */
  readonly orderPetIds: number[];
}

export interface FixtureOptions {
  file: string;
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

/**
 * Creates the benchmark database: migrated with the product's own migrations, then filled in one
 * transaction with `pets` pets (every one with its inventory item) in a dozen categories, and
 * orders for about a third of them. Most pets are available with a large stock, so `placeOrder`
 * can run for minutes without selling out.
 */
export async function createFixture({ file, pets, seed = 6 }: FixtureOptions): Promise<Fixture> {
  await migrate({ provider: 'sqlite', url: `file:${file}`, file });
  const random = seededRandom(seed);
  const db = new Sqlite(file);
  const available: number[] = [];
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
      categoryNames.forEach((name, index) => {
        const description = `${name} of many kinds, raised by trusted breeders and checked by our vets before they meet their new families.`;
        insertCategory.run(index + 1, name, name.toLowerCase(), description);
      });
      for (let id = 1; id <= pets; id++) {
        const draw = random();
        const status = draw < 0.85 ? 'available' : draw < 0.93 ? 'pending' : 'sold';
        const name = petNames[Math.floor(random() * petNames.length)] as string;
        insertPet.run(id, name, 1 + Math.floor(random() * categoryNames.length), status);
        insertStock.run(id, status === 'sold' ? 0 : 100_000 + Math.floor(random() * 900_000));
        if (status === 'available') available.push(id);
        if (random() < 0.3) {
          const shipDate = new Date(Date.UTC(2026, 10, 1 + Math.floor(random() * 60)));
          const complete = random() < 0.5 ? 1 : 0;
          insertOrder.run(id, 1 + Math.floor(random() * 3), isoDate(shipDate), complete);
        }
      }
    })();
  } finally {
    db.close();
  }
  const ids = Array.from({ length: pets }, (_, index) => index + 1);
  const starts = Array.from({ length: Math.max(1, pets - PAGE) }, (_, index) => index + 1);
  return {
    file,
    pets,
    readIds: sample(ids, POINT_READ_IDS, random),
    afterIds: sample(starts, LIST_STARTS, random),
    offsets: sample(starts, LIST_STARTS, random).map((start) => start - 1),
    orderPetIds: sample(available, ORDER_PETS, random),
  };
}

/** DateTime as the Prisma SQLite adapter writes it (ISO 8601 with an explicit offset). */
function isoDate(date: Date): string {
  return date.toISOString().replace('Z', '+00:00');
}
