import { requireScope } from '../domain/authorization.js';
import { parseId } from '../domain/ids.js';
import { builder } from '../graphql/kit/builder.js';
import {
  buildConnection,
  connectionArgs,
  connectionPage,
  connectionType,
  resolveListConnection,
} from '../graphql/kit/connection.js';
import { connectionCost, mutationCost } from '../graphql/kit/cost-directives.js';
import { existing, primed } from '../graphql/kit/loaders.js';
import { needs } from '../graphql/kit/scopes.js';
import {
  ifVersionDescription,
  ifVersionOf,
  resolveVersion,
  versionDescription,
} from '../graphql/kit/version.js';
import { Order, OrderConnection } from '../orders/graphql.js';
import { countPets, createPet, deletePet, listPets, petStatuses, updatePet } from './rules.js';

export const PetStatus = builder.enumType('PetStatus', { values: petStatuses });

export const Pet = builder.prismaObject('Pet', {
  fields: (t) => ({
    id: t.id({ resolve: (pet) => String(pet.id) }),
    name: t.exposeString('name'),
    categoryId: t.id({ resolve: (pet) => String(pet.categoryId) }),
    status: t.expose('status', { type: PetStatus }),
    version: t.string({ description: versionDescription('pet'), resolve: resolveVersion }),
    orders: t.field({
      ...needs('orders:read'),
      type: OrderConnection,
      // Nullable: a caller without orders:read keeps the pet and gets this field's error.
      nullable: true,
      args: connectionArgs,
      directives: connectionCost,
      resolve: async (pet, args, ctx) => {
        requireScope(ctx.domain.viewer, 'orders:read');
        const page = connectionPage(args);
        const orders = await ctx.loaders.ordersOfPet(page).load(pet.id);
        return buildConnection(
          orders,
          page,
          (order) => order.id,
          () => ctx.loaders.orderCountOfPet.load(pet.id),
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

/** An order's pet: the pets' side of the relation (Pet.orders is above). */
builder.prismaObjectField(Order, 'pet', (t) =>
  t.field({
    type: Pet,
    resolve: (order, _args, ctx) =>
      existing(ctx.loaders.pet.load(order.petId), `pet of order ${order.id}`),
  }),
);

builder.queryFields((t) => ({
  pet: t.field({
    type: Pet,
    nullable: true,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => ctx.loaders.pet.load(parseId(args.id, 'id')),
  }),
  pets: t.field({
    type: PetConnection,
    args: { ...connectionArgs, status: t.arg({ type: PetStatus }), categoryId: t.arg.id() },
    directives: connectionCost,
    resolve: (_root, args, ctx) => {
      const filter = { status: args.status, categoryId: args.categoryId };
      return resolveListConnection(args, {
        list: async (page) =>
          primed(ctx.loaders.pet, await listPets(ctx.domain, filter, page), (pet) => pet.id),
        count: () => countPets(ctx.domain, filter),
        idOf: (pet) => pet.id,
      });
    },
  }),
}));

builder.mutationFields((t) => ({
  createPet: t.field({
    ...needs('pets:write'),
    directives: mutationCost,
    type: Pet,
    args: { input: t.arg({ type: NewPet, required: true }) },
    resolve: (_root, args, ctx) => createPet(ctx.domain, args.input),
  }),
  updatePet: t.field({
    ...needs('pets:write'),
    directives: mutationCost,
    type: Pet,
    args: {
      id: t.arg.id({ required: true }),
      input: t.arg({ type: NewPet, required: true }),
      ifVersion: t.arg.string({ description: ifVersionDescription('pet') }),
    },
    resolve: (_root, args, ctx) =>
      updatePet(ctx.domain, args.id, args.input, ifVersionOf(args.ifVersion)),
  }),
  deletePet: t.id({
    ...needs('pets:write'),
    directives: mutationCost,
    args: {
      id: t.arg.id({ required: true }),
      ifVersion: t.arg.string({ description: ifVersionDescription('pet') }),
    },
    resolve: async (_root, args, ctx) =>
      String(await deletePet(ctx.domain, args.id, ifVersionOf(args.ifVersion))),
  }),
}));
