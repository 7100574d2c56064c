import { requireScope } from '../../domain/authorization.js';
import { countPets, createPet, deletePet, getPet, listPets, updatePet } from '../../domain/pets.js';
import type { Prisma } from '../../generated/sqlite/client.js';
import { builder } from './builder.js';
import {
  buildConnection,
  connectionArgs,
  connectionPage,
  connectionType,
  relationPage,
  resolveListConnection,
  withSomeField,
} from './connection.js';
import { OrderConnection } from './order.js';
import { PetStatus } from './pet-status.js';

export const Pet = builder.prismaObject('Pet', {
  fields: (t) => ({
    id: t.id({ resolve: (pet) => String(pet.id) }),
    name: t.exposeString('name'),
    categoryId: t.id({ resolve: (pet) => String(pet.categoryId) }),
    status: t.expose('status', { type: PetStatus }),
    category: t.relation('category'),
    inventory: t.relation('inventory', { nullable: false, onNull: 'error' }),
    orders: t.field({
      type: OrderConnection,
      // Nullable: a caller without orders:read keeps the pet and gets this field's error.
      nullable: true,
      args: connectionArgs,
      // Folded into the query that loads the pets, so a list of pets costs no extra statement per pet.
      select: (args, _ctx, nestedSelection) => ({
        // Typed by hand: Pothos cannot infer the node model through a hand-made connection type.
        orders: withSomeField(
          nestedSelection(relationPage(args, {}), ['edges', 'node']),
        ) as Prisma.Pet$ordersArgs,
        _count: { select: { orders: true } },
      }),
      resolve: (pet, args, ctx) => {
        // Loaded with the pets, shown only to callers allowed to read orders.
        requireScope(ctx.domain.viewer, 'orders:read');
        return buildConnection(
          pet.orders,
          connectionPage(args),
          (order) => order.id,
          () => pet._count.orders,
        );
      },
    }),
  }),
});

export const PetConnection = connectionType('Pet', Pet);

const NewPet = builder.inputType('NewPet', {
  fields: (t) => ({
    name: t.string({ required: true }),
    categoryId: t.id({ required: true }),
    status: t.field({ type: PetStatus }),
  }),
});

builder.queryFields((t) => ({
  pet: t.prismaField({
    type: 'Pet',
    nullable: true,
    args: { id: t.arg.id({ required: true }) },
    resolve: (query, _root, args, ctx) => getPet(ctx.domain, args.id, query),
  }),
  pets: t.field({
    type: PetConnection,
    args: { ...connectionArgs, status: t.arg({ type: PetStatus }), categoryId: t.arg.id() },
    resolve: (_root, args, ctx, info) => {
      const filter = { status: args.status, categoryId: args.categoryId };
      return resolveListConnection(args, ctx, info, {
        list: (page, selection) => listPets(ctx.domain, filter, page, selection),
        count: () => countPets(ctx.domain, filter),
        idOf: (pet) => pet.id,
      });
    },
  }),
}));

builder.mutationFields((t) => ({
  createPet: t.prismaField({
    type: 'Pet',
    args: { input: t.arg({ type: NewPet, required: true }) },
    resolve: (query, _root, args, ctx) => createPet(ctx.domain, args.input, query),
  }),
  updatePet: t.prismaField({
    type: 'Pet',
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: NewPet, required: true }) },
    resolve: (query, _root, args, ctx) => updatePet(ctx.domain, args.id, args.input, query),
  }),
  deletePet: t.id({
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => String(await deletePet(ctx.domain, args.id)),
  }),
}));
