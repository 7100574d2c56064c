import { parseId } from '../domain/ids.js';
import { builder } from '../graphql/kit/builder.js';
import { buildConnection, connectionArgs, connectionPage } from '../graphql/kit/connection.js';
import { connectionCost, mutationCost } from '../graphql/kit/cost-directives.js';
import { existing, primed } from '../graphql/kit/loaders.js';
import { needs } from '../graphql/kit/scopes.js';
import {
  ifVersionDescription,
  ifVersionOf,
  resolveVersion,
  versionDescription,
} from '../graphql/kit/version.js';
import { Pet, PetConnection, PetStatus } from '../pets/graphql.js';
import { createCategory, deleteCategory, listCategories, updateCategory } from './rules.js';

export const Category = builder.prismaObject('Category', {
  fields: (t) => ({
    id: t.id({ resolve: (category) => String(category.id) }),
    name: t.exposeString('name'),
    description: t.exposeString('description', { nullable: true }),
    version: t.string({ description: versionDescription('category'), resolve: resolveVersion }),
    pets: t.field({
      type: PetConnection,
      args: { ...connectionArgs, status: t.arg({ type: PetStatus }) },
      directives: connectionCost,
      resolve: async (category, args, ctx) => {
        const page = connectionPage(args);
        const loader = ctx.loaders.petsOfCategory({ status: args.status, page });
        const pets = primed(ctx.loaders.pet, await loader.load(category.id), (pet) => pet.id);
        return buildConnection(
          pets,
          page,
          (pet) => pet.id,
          () => ctx.loaders.petCountOfCategory(args.status).load(category.id),
        );
      },
    }),
  }),
});

/** A pet's category: the categories' side of the relation (Category.pets is above). */
builder.prismaObjectField(Pet, 'category', (t) =>
  t.field({
    type: Category,
    resolve: (pet, _args, ctx) =>
      existing(ctx.loaders.category.load(pet.categoryId), `category of pet ${pet.id}`),
  }),
);

const NewCategory = builder.inputType('NewCategory', {
  fields: (t) => ({
    name: t.string({ required: true }),
    description: t.string(),
  }),
});

builder.queryFields((t) => ({
  category: t.field({
    type: Category,
    nullable: true,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => ctx.loaders.category.load(parseId(args.id, 'id')),
  }),
  categories: t.field({
    type: [Category],
    description:
      'Every category, unpaged. Its cost counts the real number of categories (counted before ' +
      'the request runs), not an assumed size.',
    resolve: async (_root, _args, ctx) => {
      const categories = await listCategories(ctx.domain);
      primed(ctx.loaders.category, categories, (category) => category.id);
      ctx.listItems.spend(categories.length);
      return categories;
    },
  }),
}));

builder.mutationFields((t) => ({
  createCategory: t.field({
    ...needs('pets:write'),
    directives: mutationCost,
    type: Category,
    args: { input: t.arg({ type: NewCategory, required: true }) },
    resolve: (_root, args, ctx) => createCategory(ctx.domain, args.input),
  }),
  updateCategory: t.field({
    ...needs('pets:write'),
    directives: mutationCost,
    type: Category,
    args: {
      id: t.arg.id({ required: true }),
      input: t.arg({ type: NewCategory, required: true }),
      ifVersion: t.arg.string({ description: ifVersionDescription('category') }),
    },
    resolve: (_root, args, ctx) =>
      updateCategory(ctx.domain, args.id, args.input, ifVersionOf(args.ifVersion)),
  }),
  deleteCategory: t.id({
    ...needs('pets:write'),
    directives: mutationCost,
    args: {
      id: t.arg.id({ required: true }),
      ifVersion: t.arg.string({ description: ifVersionDescription('category') }),
    },
    resolve: async (_root, args, ctx) =>
      String(await deleteCategory(ctx.domain, args.id, ifVersionOf(args.ifVersion))),
  }),
}));
