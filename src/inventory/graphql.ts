import { parseId } from '../../domain/ids.js';
import { countInventory, listInventory, updateInventory } from '../../domain/inventory.js';
import { changeStream, delivered } from '../change-stream.js';
import type { GraphQLContext } from '../context.js';
import { existing } from '../loaders.js';
import { builder } from './builder.js';
import { connectionArgs, connectionType, resolveListConnection } from './connection.js';
import { connectionCost, mutationCost } from './cost-directives.js';
import { afterDescription } from './event-cursor.js';
import { PetStatus } from './pet-status.js';
import { needs } from './scopes.js';
import {
  ifVersionDescription,
  ifVersionOf,
  resolveVersion,
  versionDescription,
} from './version.js';

/** The pet of an inventory item (its status is the item's). */
export function petOf(item: { petId: bigint }, ctx: GraphQLContext) {
  return existing(ctx.loaders.pet.load(item.petId), `pet of inventory item ${item.petId}`);
}

export const InventoryItem = builder.prismaObject('InventoryItem', {
  fields: (t) => ({
    petId: t.id({ resolve: (item) => String(item.petId) }),
    quantity: t.exposeInt('quantity'),
    // The pet's status: read with the pet, through the same loader.
    status: t.field({
      type: PetStatus,
      resolve: async (item, _args, ctx) => (await petOf(item, ctx)).status,
    }),
    version: t.string({
      description: versionDescription('inventory item'),
      resolve: resolveVersion,
    }),
  }),
});

const InventoryItemConnection = connectionType('InventoryItem', InventoryItem);

const InventoryUpdate = builder.inputType('InventoryUpdate', {
  fields: (t) => ({ quantity: t.int({ required: true }) }),
});

builder.queryFields((t) => ({
  inventory: t.field({
    type: InventoryItem,
    nullable: true,
    args: { petId: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => ctx.loaders.inventory.load(parseId(args.petId, 'petId')),
  }),
  inventories: t.field({
    type: InventoryItemConnection,
    args: connectionArgs,
    directives: connectionCost,
    resolve: (_root, args, ctx) =>
      resolveListConnection(args, {
        list: (page) => listInventory(ctx.domain, page),
        count: () => countInventory(ctx.domain),
        idOf: (item) => item.petId,
      }),
  }),
}));

builder.mutationFields((t) => ({
  updateInventory: t.field({
    ...needs('inventory:write'),
    type: InventoryItem,
    directives: { beta: {}, ...mutationCost },
    description: 'Sets the stock of a pet. Beta: the shape may still change.',
    args: {
      petId: t.arg.id({ required: true }),
      input: t.arg({ type: InventoryUpdate, required: true }),
      ifVersion: t.arg.string({ description: ifVersionDescription('stock') }),
    },
    resolve: (_root, args, ctx) =>
      updateInventory(ctx.domain, args.petId, args.input.quantity, ifVersionOf(args.ifVersion)),
  }),
}));

builder.subscriptionFields((t) => ({
  inventoryChanged: t.field({
    type: InventoryItem,
    directives: { experimental: {} },
    description:
      "Stock as it changes (one pet's with `petId`), read when delivered; each event's cursor is in its `extensions.cursor`. Experimental.",
    args: { petId: t.arg.id(), after: t.arg.string({ description: afterDescription }) },
    subscribe: (_root, args, ctx) => {
      const petId = args.petId == null ? undefined : parseId(args.petId, 'petId');
      return changeStream(
        ctx,
        {
          // A deleted pet has no stock left to show.
          select: (change) =>
            change.entity === 'inventory' &&
            change.kind !== 'deleted' &&
            (petId === undefined || change.petId === petId)
              ? change.petId
              : undefined,
          deliver: async (id) => (await ctx.loaders.inventory.load(id)) ?? undefined,
        },
        args.after,
      );
    },
    resolve: (item) => delivered(item),
  }),
}));
