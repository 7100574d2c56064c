import {
  createCategory,
  deleteCategory,
  getCategory,
  listCategories,
  updateCategory,
} from '../../domain/categories.js';
import { parseStatus } from '../../domain/pets.js';
import type { Prisma } from '../../generated/sqlite/client.js';
import { builder } from './builder.js';
import {
  buildConnection,
  connectionArgs,
  connectionPage,
  relationPage,
  withSomeField,
} from './connection.js';
import { PetConnection } from './pet.js';
import { PetStatus } from './pet-status.js';

builder.prismaObject('Category', {
  fields: (t) => ({
    id: t.id({ resolve: (category) => String(category.id) }),
    name: t.exposeString('name'),
    description: t.exposeString('description', { nullable: true }),
    pets: t.field({
      type: PetConnection,
      args: { ...connectionArgs, status: t.arg({ type: PetStatus }) },
      // Folded into the query that loads the categories (see Pet.orders).
      select: (args, _ctx, nestedSelection) => {
        const status = args.status == null ? undefined : parseStatus(args.status);
        return {
          pets: withSomeField(
            nestedSelection(relationPage(args, { status }), ['edges', 'node']),
          ) as Prisma.Category$petsArgs, // typed by hand, see Pet.orders
          _count: { select: { pets: { where: { status } } } },
        };
      },
      resolve: (category, args) =>
        buildConnection(
          category.pets,
          connectionPage(args),
          (pet) => pet.id,
          () => category._count.pets,
        ),
    }),
  }),
});

const NewCategory = builder.inputType('NewCategory', {
  fields: (t) => ({
    name: t.string({ required: true }),
    description: t.string(),
  }),
});

builder.queryFields((t) => ({
  category: t.prismaField({
    type: 'Category',
    nullable: true,
    args: { id: t.arg.id({ required: true }) },
    resolve: (query, _root, args, ctx) => getCategory(ctx.domain, args.id, query),
  }),
  categories: t.prismaField({
    type: ['Category'],
    resolve: async (query, _root, _args, ctx) => {
      const categories = await listCategories(ctx.domain, query);
      ctx.listItems.spend(categories.length);
      return categories;
    },
  }),
}));

builder.mutationFields((t) => ({
  createCategory: t.prismaField({
    type: 'Category',
    args: { input: t.arg({ type: NewCategory, required: true }) },
    resolve: (query, _root, args, ctx) => createCategory(ctx.domain, args.input, query),
  }),
  updateCategory: t.prismaField({
    type: 'Category',
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: NewCategory, required: true }) },
    resolve: (query, _root, args, ctx) => updateCategory(ctx.domain, args.id, args.input, query),
  }),
  deleteCategory: t.id({
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => String(await deleteCategory(ctx.domain, args.id)),
  }),
}));
