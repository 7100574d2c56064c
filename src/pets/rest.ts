import { z } from '@hono/zod-openapi';
import { parseId } from '../domain/ids.js';
import { notFound } from '../domain/not-found.js';
import { pageOf } from '../rest/kit/query.js';
import { sendCreated, sendNoContent, sendPage, sendResource } from '../rest/kit/respond.js';
import { type Deprecation, defineRoute } from '../rest/kit/route.js';
import {
  idParam,
  int64,
  name,
  pagingQuery,
  queryParam,
  serverAssignsIds,
  text,
} from '../rest/kit/schemas.js';
import { created, noContent, one, page } from '../rest/kit/success.js';
import * as pets from './rules.js';
import { petStatuses, type PetStatus as Status } from './rules.js';

export const PetStatus = z
  .enum(petStatuses, { error: `must be one of ${petStatuses.join(', ')}` })
  .openapi('PetStatus', { description: 'A pet status, lowercase.' });

export const NewPet = z
  .strictObject({
    id: serverAssignsIds(),
    name: name('Rex'),
    categoryId: int64('An existing category.'),
    status: PetStatus.optional(),
  })
  .openapi('NewPet', {
    description:
      'A pet to create or the full replacement of one. Without `status` a new pet is `available` ' +
      'and a replaced pet keeps its status.',
  });

export const Pet = z
  .strictObject({
    id: int64('The pet id.'),
    name: text(),
    categoryId: int64('The category id.'),
    status: PetStatus,
  })
  .openapi('Pet');

export const Pets = z.array(Pet).openapi('Pets');

export function presentPet(pet: {
  id: bigint;
  name: string;
  categoryId: bigint;
  status: Status;
}): z.input<typeof Pet> {
  return { id: pet.id, name: pet.name, categoryId: pet.categoryId, status: pet.status };
}

const petPath = z.object({ petId: idParam('petId', 'The pet id.') });

/** GET /pets/{petId} is deprecated in favour of the GraphQL query pet(id:), with a sunset date. */
export const petByIdDeprecation: Deprecation = {
  since: new Date('2026-11-21T00:00:00Z'),
  sunset: (config) => config.petByIdSunset,
  successor: '/graphql',
  instead: 'the GraphQL query pet(id:) at /graphql',
};

export const listPets = defineRoute(
  {
    method: 'get',
    path: '/pets',
    operationId: 'listPets',
    cache: { entity: 'pet' },
    tag: 'pets',
    summary: 'List pets',
    description:
      'Pets ordered by id, filtered by `status` and `categoryId`, one page at a time; `X-Total-Count` ' +
      'holds the number of matching pets over all pages.',
    query: z.object({
      status: PetStatus.optional(),
      categoryId: queryParam(
        'categoryId',
        { type: 'integer', format: 'int64', minimum: 1 },
        'Only the pets of this category.',
      ),
      ...pagingQuery,
    }),
    success: page(Pets, 'A page of the pets that match.'),
  },
  async (c, { query }, { domain }) => {
    const filter = { status: query.status, categoryId: query.categoryId };
    const [rows, total] = await Promise.all([
      pets.listPets(domain, filter, pageOf(query)),
      pets.countPets(domain, filter),
    ]);
    return sendPage(c, rows.map(presentPet), total);
  },
);

export const createPet = defineRoute(
  {
    method: 'post',
    path: '/pets',
    operationId: 'createPet',
    scope: 'pets:write',
    tag: 'pets',
    summary: 'Create a pet',
    description: 'The new pet has an inventory item with quantity 0.',
    body: NewPet,
    success: created(Pet, 'The new pet.'),
    errors: ['UNKNOWN_CATEGORY'],
  },
  async (c, { body }, { domain }) => {
    const pet = await pets.createPet(domain, body);
    return sendCreated(c, presentPet(pet), pet);
  },
);

export const getPetById = defineRoute(
  {
    method: 'get',
    path: '/pets/{petId}',
    operationId: 'getPetById',
    cache: { entity: 'pet', idParam: 'petId' },
    tag: 'pets',
    summary: 'Read a pet (deprecated)',
    description:
      'Deprecated: use the GraphQL query `pet(id:)` at /graphql. Every response carries ' +
      '`Deprecation`, `Sunset` and `Link` headers; from the sunset on the route answers 410 ' +
      '`ENDPOINT_SUNSET`.',
    params: petPath,
    deprecation: petByIdDeprecation,
    success: one(Pet, 'The pet.'),
    errors: ['PET_NOT_FOUND'],
  },
  async (c, { params }, { shared }) => {
    const id = parseId(params.petId, 'petId');
    const pet = (await shared.pets.load(id)) ?? notFound('pet', id);
    return sendResource(c, presentPet(pet), pet);
  },
);

export const replacePet = defineRoute(
  {
    method: 'put',
    path: '/pets/{petId}',
    operationId: 'replacePet',
    scope: 'pets:write',
    tag: 'pets',
    summary: 'Replace a pet',
    description: 'A full replacement; without `status` the pet keeps its status.',
    params: petPath,
    body: NewPet,
    success: one(Pet, 'The pet as replaced.'),
    errors: ['PET_NOT_FOUND', 'UNKNOWN_CATEGORY'],
  },
  async (c, { params, body, ifVersion }, { domain }) => {
    const pet = await pets.updatePet(domain, parseId(params.petId, 'petId'), body, ifVersion);
    return sendResource(c, presentPet(pet), pet);
  },
);

export const deletePet = defineRoute(
  {
    method: 'delete',
    path: '/pets/{petId}',
    operationId: 'deletePet',
    scope: 'pets:write',
    tag: 'pets',
    summary: 'Delete a pet',
    description:
      'A pet that has orders cannot be deleted (409 `PET_HAS_ORDERS`). The example id, 34, is a ' +
      'sample pet without orders.',
    params: z.object({ petId: idParam('petId', 'The pet id.', 34) }),
    success: noContent('Deleted, with its inventory item.'),
    errors: ['PET_NOT_FOUND', 'PET_HAS_ORDERS'],
  },
  async (c, { params, ifVersion }, { domain }) => {
    await pets.deletePet(domain, parseId(params.petId, 'petId'), ifVersion);
    return sendNoContent(c);
  },
);
