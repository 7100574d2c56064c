import { randomBytes } from 'node:crypto';
import type { App } from '../../src/app.js';

type Status = 'available' | 'pending' | 'sold';

const unique = () => randomBytes(4).toString('hex');

/** Test rows made straight in the database, so each test states exactly what it starts from. */
export async function makeCategory(app: App, fields: { name?: string; description?: string } = {}) {
  const name = fields.name ?? `Category ${unique()}`;
  return app.database.prisma.category.create({
    data: { name, nameKey: name.toLowerCase(), description: fields.description ?? null },
  });
}

export async function makePet(
  app: App,
  fields: { name?: string; categoryId?: bigint; status?: Status; quantity?: number } = {},
) {
  const categoryId = fields.categoryId ?? (await makeCategory(app)).id;
  return app.database.prisma.pet.create({
    data: {
      name: fields.name ?? `Pet ${unique()}`,
      categoryId,
      status: fields.status ?? 'available',
      inventory: { create: { quantity: fields.quantity ?? 0 } },
    },
  });
}

export async function makeOrder(
  app: App,
  fields: { petId: bigint; quantity?: number; complete?: boolean; shipDate?: Date },
) {
  return app.database.prisma.order.create({
    data: {
      petId: fields.petId,
      quantity: fields.quantity ?? 1,
      complete: fields.complete ?? false,
      shipDate: fields.shipDate ?? null,
    },
  });
}

export async function stockOf(app: App, petId: bigint) {
  const item = await app.database.prisma.inventoryItem.findUniqueOrThrow({
    where: { petId },
    include: { pet: true },
  });
  return { quantity: item.quantity, status: item.pet.status };
}
