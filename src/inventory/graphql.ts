import { parseId } from '../domain/ids.js';
import { builder } from '../graphql/kit/builder.js';
import { changeStream, delivered } from '../graphql/kit/change-stream.js';
import {
  connectionArgs,
  connectionType,
  resolveListConnection,
} from '../graphql/kit/connection.js';
import type { GraphQLContext } from '../graphql/kit/context.js';
import { connectionCost, mutationCost } from '../graphql/kit/cost-directives.js';
import { afterDescription } from '../graphql/kit/event-cursor.js';
import { existing } from '../graphql/kit/loaders.js';
import { needs } from '../graphql/kit/scopes.js';
import {
  ifVersionDescription,
  ifVersionOf,
  resolveVersion,
  versionDescription,
} from '../graphql/kit/version.js';
import { Pet, PetStatus } from '../pets/graphql.js';
import { countInventory, listInventory, updateInventory } from './rules.js';

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

/** The stock of a pet, and the pet of an inventory item: the relation, from the inventory's side. */
builder.prismaObjectField(Pet, 'inventory', (t) =>
  t.field({
    type: InventoryItem,
    resolve: (pet, _args, ctx) =>
      existing(ctx.loaders.inventory.load(pet.id), `inventory of pet ${pet.id}`),
  }),
);

builder.prismaObjectField(InventoryItem, 'pet', (t) =>
  t.field({
    type: Pet,
    resolve: (item, _args, ctx) => petOf(item, ctx),
  }),
);

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
