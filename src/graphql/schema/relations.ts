import { existing } from '../loaders.js';
import { builder } from './builder.js';
import { Category } from './category.js';
import { InventoryItem, petOf } from './inventory.js';
import { Order } from './order.js';
import { Pet } from './pet.js';

/**
 * The to-one relations, read through the request's loaders. Plain fields rather than Pothos'
 * `t.relation`, whose wrapper plans a Prisma query for every row it resolves; and in a file of
 * their own because the types refer to each other, which TypeScript cannot infer within them.
 */

builder.prismaObjectFields(Pet, (t) => ({
  category: t.field({
    type: Category,
    resolve: (pet, _args, ctx) =>
      existing(ctx.loaders.category.load(pet.categoryId), `category of pet ${pet.id}`),
  }),
  inventory: t.field({
    type: InventoryItem,
    resolve: (pet, _args, ctx) =>
      existing(ctx.loaders.inventory.load(pet.id), `inventory of pet ${pet.id}`),
  }),
}));

builder.prismaObjectField(Order, 'pet', (t) =>
  t.field({
    type: Pet,
    resolve: (order, _args, ctx) =>
      existing(ctx.loaders.pet.load(order.petId), `pet of order ${order.id}`),
  }),
);

builder.prismaObjectField(InventoryItem, 'pet', (t) =>
  t.field({
    type: Pet,
    resolve: (item, _args, ctx) => petOf(item, ctx),
  }),
);
