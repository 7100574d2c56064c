import { z } from '@hono/zod-openapi';
import * as categories from '../../categories/rest.js';
import * as inventory from '../../inventory/rest.js';
import * as orders from '../../orders/rest.js';
import * as pets from '../../pets/rest.js';
import { defineRoute, type Route } from '../kit/route.js';
import { openApiJson } from '../openapi.js';

/** The resource routes of the REST façade, in the order of the document. */
const resourceRoutes: readonly Route[] = [
  pets.listPets,
  pets.createPet,
  pets.getPetById,
  pets.replacePet,
  pets.deletePet,
  categories.listCategories,
  categories.createCategory,
  categories.getCategory,
  categories.replaceCategory,
  categories.deleteCategory,
  orders.listOrders,
  orders.placeOrder,
  orders.getOrder,
  orders.updateOrder,
  orders.cancelOrder,
  inventory.listInventory,
  inventory.getInventoryItem,
  inventory.updateInventory,
];

/** `GET /openapi.json`: the document of every route, this one included. */
const documentRoute: Route = defineRoute(
  {
    method: 'get',
    path: '/openapi.json',
    operationId: 'getOpenApiDocument',
    tag: 'meta',
    summary: 'This OpenAPI 3.0.3 document',
    description:
      'The document built from the route declarations; its `x-sunset`, `Sunset` values and ' +
      'stated limits follow the running configuration.',
    success: {
      status: 200,
      description: 'The document; `x-sunset` and the Sunset values follow the configuration.',
      schema: z
        .object({
          openapi: z.literal('3.0.3'),
          info: z.object({ version: z.string() }).openapi({ additionalProperties: true }),
          paths: z.object({}).openapi({ additionalProperties: true }),
        })
        .openapi({ additionalProperties: true, description: 'An OpenAPI 3.0.3 document.' }),
    },
  },
  (c, _input, { config }) =>
    c.body(openApiJson(allRoutes, config), 200, {
      'content-type': 'application/json; charset=utf-8',
    }),
);

/** Every REST route, in the order of the document. */
export const allRoutes: readonly Route[] = [...resourceRoutes, documentRoute];
