import { z } from '@hono/zod-openapi';
import type { DomainContext } from '../domain/context.js';
import { parseId } from '../domain/ids.js';
import { notFound } from '../domain/not-found.js';
import { PetStatus } from '../pets/rest.js';
import type { PetStatus as Status } from '../pets/rules.js';
import { pageOf } from '../rest/kit/query.js';
import { sendPage, sendResource } from '../rest/kit/respond.js';
import { defineRoute } from '../rest/kit/route.js';
import { count, idParam, ignored, int64, pagingQuery } from '../rest/kit/schemas.js';
import { one, page } from '../rest/kit/success.js';
import * as inventory from './rules.js';
import { MAX_STOCK } from './rules.js';

export const InventoryItem = z
  .strictObject({
    petId: int64('The pet.'),
    quantity: count(0, MAX_STOCK, 'Units in stock.'),
    status: PetStatus,
  })
  .openapi('InventoryItem', { description: "A pet's stock; `status` is the pet's status." });

export const InventoryUpdate = z
  .strictObject({
    id: ignored('the path names the pet.'),
    quantity: count(0, MAX_STOCK, 'The new stock.', 10),
  })
  .openapi('InventoryUpdate', {
    description: 'Stock above 0 makes a sold pet available again; 0 changes no status.',
  });

export function presentInventoryItem(item: {
  petId: bigint;
  quantity: number;
  pet: { status: Status };
}): z.input<typeof InventoryItem> {
  return { petId: item.petId, quantity: item.quantity, status: item.pet.status };
}

const petPath = z.object({ petId: idParam('petId', 'The pet id.') });

/** An inventory item with its pet's status, which the REST body carries. */
async function requireItem(domain: DomainContext, petId: bigint) {
  return (await inventory.getInventoryItem(domain, petId)) ?? notFound('pet', petId);
}

export const listInventory = defineRoute(
  {
    method: 'get',
    path: '/store/inventory',
    operationId: 'listInventory',
    cache: { entity: 'inventory' },
    tag: 'store',
    summary: 'List the stock of every pet',
    description:
      "Every pet's stock and status, ordered by pet id, one page at a time; `X-Total-Count` " +
      'holds the number of pets.',
    query: z.object(pagingQuery),
    success: page(z.array(InventoryItem), 'A page of inventory items, by pet id.'),
  },
  async (c, { query }, { domain }) => {
    const rows = await inventory.listInventoryWithStatus(domain, pageOf(query));
    const total = await inventory.countInventory(domain);
    return sendPage(c, rows.map(presentInventoryItem), total);
  },
);

export const getInventoryItem = defineRoute(
  {
    method: 'get',
    path: '/store/inventory/{petId}',
    operationId: 'getInventoryItem',
    cache: { entity: 'inventory', idParam: 'petId' },
    tag: 'store',
    summary: "Read a pet's stock",
    description: "One pet's stock and status; 404 PET_NOT_FOUND when there is no such pet.",
    params: petPath,
    success: one(InventoryItem, "The pet's inventory item."),
    errors: ['PET_NOT_FOUND'],
  },
  async (c, { params }, { domain }) => {
    const item = await requireItem(domain, parseId(params.petId, 'petId'));
    return sendResource(c, presentInventoryItem(item), item);
  },
);

export const updateInventory = defineRoute(
  {
    method: 'put',
    path: '/store/inventory/{petId}',
    operationId: 'updateInventory',
    scope: 'inventory:write',
    tag: 'store',
    summary: "Set a pet's stock (beta)",
    description:
      'Beta: the shape may still change. Stock above 0 makes a `sold` pet `available`; 0 ' +
      'changes no status.',
    stability: 'beta',
    params: petPath,
    body: InventoryUpdate,
    success: one(InventoryItem, 'The inventory item as set.'),
    errors: ['PET_NOT_FOUND'],
  },
  async (c, { params, body, ifVersion }, { domain }) => {
    const petId = parseId(params.petId, 'petId');
    await inventory.updateInventory(domain, petId, body.quantity, ifVersion);
    const item = await requireItem(domain, petId);
    return sendResource(c, presentInventoryItem(item), item);
  },
);
