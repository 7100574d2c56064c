import {
  countInventory,
  getInventoryItem,
  listInventory,
  updateInventory,
} from '../../domain/inventory.js';
import { builder } from './builder.js';
import { connectionArgs, connectionType, resolveListConnection } from './connection.js';
import { PetStatus } from './pet-status.js';

const InventoryItem = builder.prismaObject('InventoryItem', {
  fields: (t) => ({
    petId: t.id({ resolve: (item) => String(item.petId) }),
    quantity: t.exposeInt('quantity'),
    status: t.field({
      type: PetStatus,
      select: { pet: { select: { status: true } } },
      resolve: (item) => item.pet.status,
    }),
    pet: t.relation('pet'),
  }),
});

const InventoryItemConnection = connectionType('InventoryItem', InventoryItem);

const InventoryUpdate = builder.inputType('InventoryUpdate', {
  fields: (t) => ({ quantity: t.int({ required: true }) }),
});

builder.queryFields((t) => ({
  inventory: t.prismaField({
    type: 'InventoryItem',
    nullable: true,
    args: { petId: t.arg.id({ required: true }) },
    resolve: (query, _root, args, ctx) => getInventoryItem(ctx.domain, args.petId, query),
  }),
  inventories: t.field({
    type: InventoryItemConnection,
    args: connectionArgs,
    resolve: (_root, args, ctx, info) =>
      resolveListConnection(args, ctx, info, {
        list: (page, selection) => listInventory(ctx.domain, page, selection),
        count: () => countInventory(ctx.domain),
        idOf: (item) => item.petId,
      }),
  }),
}));

builder.mutationFields((t) => ({
  updateInventory: t.prismaField({
    type: 'InventoryItem',
    directives: { beta: {} },
    description: 'Sets the stock of a pet. Beta: the shape may still change.',
    args: {
      petId: t.arg.id({ required: true }),
      input: t.arg({ type: InventoryUpdate, required: true }),
    },
    resolve: (query, _root, args, ctx) =>
      updateInventory(ctx.domain, args.petId, args.input.quantity, query),
  }),
}));
