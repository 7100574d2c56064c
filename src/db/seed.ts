import type { Pet } from '../generated/sqlite/client.js';
import { bulkTransaction, type Db } from './client.js';

const categories = [
  { name: 'Dogs', description: 'Loyal companions of every size' },
  { name: 'Cats', description: 'Independent, curious and fond of naps' },
  { name: 'Birds', description: 'Songbirds, parrots and finches' },
  { name: 'Fish', description: 'Freshwater and marine fish' },
  { name: 'Reptiles', description: 'Lizards, snakes and tortoises' },
];

const names: Record<string, string[]> = {
  Dogs: ['Rex', 'Bella', 'Max', 'Luna', 'Charlie', 'Daisy', 'Rocky', 'Molly'],
  Cats: ['Milo', 'Cleo', 'Oliver', 'Nala', 'Simba', 'Willow', 'Tiger'],
  Birds: ['Kiwi', 'Sunny', 'Pico', 'Blue', 'Mango', 'Echo'],
  Fish: ['Nemo', 'Bubbles', 'Finn', 'Goldie', 'Splash', 'Coral', 'Dory'],
  Reptiles: ['Spike', 'Shelly', 'Iggy', 'Slinky', 'Gecko', 'Rango'],
};

/** The n-th sample pet's status: a deterministic mix, mostly available, a few pending or sold. */
export function sampleStatus(n: number): Pet['status'] {
  return n % 11 === 0 ? 'pending' : n % 13 === 0 ? 'sold' : 'available';
}

/**
 * Loads the sample data into an empty database and returns true; leaves a database that already
 * has categories untouched and returns false, so running it twice changes nothing.
 */
export async function seedSampleData(db: Db): Promise<boolean> {
  if ((await db.category.count()) > 0) return false;
  await db.$transaction(async (tx) => {
    let n = 0;
    for (const category of categories) {
      const { id: categoryId } = await tx.category.create({
        data: { ...category, nameKey: category.name.toLowerCase() },
      });
      for (const name of names[category.name] ?? []) {
        n++;
        // A deterministic mix: most pets in stock, a few pending or sold out.
        const status = sampleStatus(n);
        const quantity = status === 'sold' ? 0 : ((n * 7) % 25) + 1;
        const pet = await tx.pet.create({
          data: { name, categoryId, status, inventory: { create: { quantity } } },
        });
        if (n % 4 === 0) {
          await tx.order.create({
            data: {
              petId: pet.id,
              quantity: 1,
              complete: n % 8 === 0,
              shipDate: new Date(Date.UTC(2026, 11, (n % 28) + 1)),
            },
          });
        }
      }
    }
  }, bulkTransaction);
  return true;
}
