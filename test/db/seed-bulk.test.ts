import { expect, it } from 'vitest';
import { seedPets } from '../../src/db/seed-bulk.js';
import { describeDb, useTestApp } from '../helpers/app.js';
import { makeCategory } from '../helpers/factories.js';

describeDb('seeding pets at size', () => {
  const app = useTestApp();

  it('refuses to run without a category', async () => {
    await expect(seedPets(app().database.prisma, 10)).rejects.toThrow(/category/);
  });

  it('tops the pets up to the target in batches, with inventory, and is idempotent', async () => {
    const db = app().database.prisma;
    const dogs = await makeCategory(app(), { name: 'Bulk dogs' });
    const cats = await makeCategory(app(), { name: 'Bulk cats' });
    const progress: [number, number][] = [];

    const added = await seedPets(db, 2500, {
      batchSize: 1000,
      onProgress: (done, toAdd) => progress.push([done, toAdd]),
    });
    expect(added).toBe(2500);
    expect(progress).toEqual([
      [1000, 2500],
      [2000, 2500],
      [2500, 2500],
    ]);
    expect(await db.pet.count()).toBe(2500);
    expect(await db.inventoryItem.count()).toBe(2500);
    expect(await db.pet.count({ where: { categoryId: dogs.id } })).toBe(1250);
    expect(await db.pet.count({ where: { categoryId: cats.id } })).toBe(1250);

    const statuses = await db.pet.groupBy({
      by: ['status'],
      _count: true,
      orderBy: { status: 'asc' },
    });
    expect(statuses.map((group) => group.status)).toEqual(['available', 'pending', 'sold']);
    expect(
      await db.inventoryItem.count({ where: { pet: { status: 'sold' }, quantity: { gt: 0 } } }),
    ).toBe(0);
    expect(
      await db.inventoryItem.count({ where: { pet: { status: 'available' }, quantity: 0 } }),
    ).toBe(0);

    expect(await seedPets(db, 2500)).toBe(0);
    expect(await seedPets(db, 100)).toBe(0);
    expect(await db.pet.count()).toBe(2500);

    expect(await seedPets(db, 2600)).toBe(100);
    expect(await db.pet.count()).toBe(2600);
    expect(await db.inventoryItem.count()).toBe(2600);
  });
});
