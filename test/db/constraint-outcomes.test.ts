import { expect, it } from 'vitest';
import * as categories from '../../src/categories/store.js';
import * as pets from '../../src/pets/store.js';
import { describeDb, useTestApp } from '../helpers/app.js';
import { makeCategory, makeOrder, makePet } from '../helpers/factories.js';

/*
 * A write the database refuses for a constraint is what a store answers, never a database code
 * (src/db/errors.ts, `unlessViolates`), on either database. The rules check first, so through the
 * API these answers come only from a race (a pet created between a category's check and its
 * delete): here the stores are called straight away.
 */
describeDb('a write a constraint refuses, as a store answers it', () => {
  const app = useTestApp();
  const db = () => app().database.prisma;

  it('a category name taken, case-insensitively', async () => {
    const taken = await makeCategory(app());
    const other = await makeCategory(app());
    const data = { name: taken.name.toUpperCase(), nameKey: taken.nameKey, description: null };
    expect(await categories.insertCategory(db(), data)).toBe('name taken');
    expect(await categories.updateCategoryIfVersion(db(), other, data)).toBe('name taken');
    expect(await categories.categoryById(db(), other.id)).toEqual(other);
  });

  it('a category with pets, kept', async () => {
    const { categoryId } = await makePet(app());
    const category = await categories.categoryById(db(), categoryId);
    expect(await categories.deleteCategoryIfVersion(db(), categoryId, 1)).toBe('has pets');
    expect(await categories.categoryById(db(), categoryId)).toEqual(category);
  });

  it('a pet of a category that does not exist', async () => {
    const pet = await makePet(app());
    const data = { name: 'Rex', categoryId: 987_654_321n };
    expect(await pets.insertPet(db(), data)).toBe('unknown category');
    expect(await pets.updatePetIfVersion(db(), pet, data)).toBe('unknown category');
    expect(await pets.petById(db(), pet.id)).toEqual(pet);
  });

  it('a pet with orders, kept; and a version moved on is stale', async () => {
    const pet = await makePet(app(), { quantity: 1 });
    await makeOrder(app(), { petId: pet.id });
    expect(await pets.deletePetIfVersion(db(), pet.id, pet.version)).toBe('has orders');
    expect(await pets.deletePetIfVersion(db(), pet.id, pet.version + 1)).toBe('stale');
    expect(await pets.petById(db(), pet.id)).toEqual(pet);
  });
});
