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

/**
 * Sends `send` twice while another transaction holds the pet (PostgreSQL: its row; SQLite: the
 * one writer's turn): the first request, once it has its idempotency key, waits in the middle of
 * its work while the second arrives. Resolves with the second's answer once the hold is released,
 * and the first, still running.
 */
export async function sendTwiceWhileHeld<T>(app: App, petId: bigint, send: () => Promise<T>) {
  let open = () => {};
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  let held = () => {};
  const locked = new Promise<void>((resolve) => {
    held = resolve;
  });
  const holding = app.database.prisma.$transaction(async (tx) => {
    await tx.$queryRawUnsafe(
      app.database.dialect === 'postgresql'
        ? `SELECT "id" FROM "Pet" WHERE "id" = ${petId} FOR UPDATE`
        : 'SELECT 1',
    );
    held();
    await gate;
  });
  // The first request is sent once the row is held: sent earlier, on a busy machine it could take
  // the row first and finish before the retry (which then replays instead of meeting it in flight).
  await locked;
  const first = send();
  await new Promise((resolve) => setTimeout(resolve, 300));
  const second = send();
  await new Promise((resolve) => setTimeout(resolve, 100));
  open();
  await holding;
  return { first, second: await second };
}
