import { bulkTransaction, type Db } from './client.js';
import { sampleStatus } from './seed.js';

const names = [
  'Rex',
  'Bella',
  'Max',
  'Luna',
  'Charlie',
  'Milo',
  'Cleo',
  'Nala',
  'Kiwi',
  'Mango',
  'Nemo',
  'Finn',
  'Coral',
  'Spike',
  'Shelly',
  'Iggy',
  'Pico',
  'Willow',
  'Rocky',
  'Daisy',
];

export interface SeedPetsOptions {
  /** Pets per insert statement (and per transaction). */
  batchSize?: number;
  /** Called after each batch with the pets added so far and the number to add. */
  onProgress?: (added: number, toAdd: number) => void;
}

/** The n-th generated pet: a deterministic mix, like the sample data (mostly available). */
function petRow(n: number, categoryIds: bigint[]) {
  return {
    name: `${names[n % names.length]} ${n}`,
    categoryId: categoryIds[n % categoryIds.length] as bigint,
    status: sampleStatus(n),
  };
}

/**
 * Adds generated pets (each with its inventory row) until the database holds `target` pets, in
 * batched inserts, one transaction per batch. Like the sample data it is idempotent: a database
 * that already holds `target` pets or more is left untouched. Pets go round the existing
 * categories. Returns the number of pets added.
 */
export async function seedPets(
  db: Db,
  target: number,
  { batchSize = 2000, onProgress }: SeedPetsOptions = {},
): Promise<number> {
  const categoryIds = (
    await db.category.findMany({ select: { id: true }, orderBy: { id: 'asc' } })
  ).map((category) => category.id);
  if (categoryIds.length === 0)
    throw new Error('Pets need a category: load the sample data first.');
  const existing = await db.pet.count();
  const toAdd = Math.max(0, target - existing);
  for (let added = 0; added < toAdd; ) {
    const size = Math.min(batchSize, toAdd - added);
    const first = existing + added + 1;
    const rows = Array.from({ length: size }, (_, i) => petRow(first + i, categoryIds));
    await db.$transaction(async (tx) => {
      const pets = await tx.pet.createManyAndReturn({
        data: rows,
        select: { id: true, status: true },
      });
      await tx.inventoryItem.createMany({
        data: pets.map((pet) => ({
          petId: pet.id,
          quantity: pet.status === 'sold' ? 0 : Number(pet.id % 25n) + 1,
        })),
      });
    }, bulkTransaction);
    added += size;
    onProgress?.(added, toAdd);
  }
  return toAdd;
}
