import { z } from '@hono/zod-openapi';
import { parseId } from '../domain/ids.js';
import { notFound } from '../domain/not-found.js';
import { pageOf, queryBoolean } from '../rest/kit/query.js';
import { sendCreated, sendNoContent, sendPage, sendResource } from '../rest/kit/respond.js';
import { defineRoute } from '../rest/kit/route.js';
import {
  count,
  dateTime,
  idParam,
  ignored,
  int64,
  pagingQuery,
  queryParam,
  serverAssignsIds,
} from '../rest/kit/schemas.js';
import { created, noContent, one, page } from '../rest/kit/success.js';
import * as orders from './rules.js';
import { MAX_ORDER_QUANTITY } from './rules.js';

export const NewOrder = z
  .strictObject({
    id: serverAssignsIds(),
    complete: ignored('an order is placed incomplete; complete it with PATCH.'),
    petId: int64('An existing, available pet.'),
    quantity: count(1, MAX_ORDER_QUANTITY, 'Units to take from the stock.', 1),
    shipDate: dateTime('RFC 3339 with an offset.').optional(),
  })
  .openapi({ description: 'An order to place.' });

export const OrderUpdate = z
  .strictObject({
    id: ignored('an order keeps its id.'),
    shipDate: dateTime('RFC 3339 with an offset; `null` clears it.').nullable().optional(),
    complete: z
      .boolean({ error: 'must be true or false' })
      .optional()
      .openapi({ description: '`true` completes the order, which is final.' }),
  })
  .openapi({ description: 'Changes to an order: only the given fields change.' });

export const Order = z
  .strictObject({
    id: int64('The order id.'),
    petId: int64('The ordered pet.'),
    quantity: count(1, MAX_ORDER_QUANTITY, 'Units ordered.'),
    shipDate: dateTime('RFC 3339, UTC.').optional(),
    complete: z.boolean(),
  })
  .openapi('Order');

export function presentOrder(order: {
  id: bigint;
  petId: bigint;
  quantity: number;
  shipDate: Date | null;
  complete: boolean;
}): z.input<typeof Order> {
  const { id, petId, quantity, shipDate, complete } = order;
  return shipDate === null
    ? { id, petId, quantity, complete }
    : { id, petId, quantity, shipDate: shipDate.toISOString(), complete };
}

const orderPath = z.object({ orderId: idParam('orderId', 'The order id.') });

export const listOrders = defineRoute(
  {
    method: 'get',
    path: '/store/orders',
    operationId: 'listOrders',
    scope: 'orders:read',
    tag: 'store',
    summary: 'List orders',
    description:
      'Orders ordered by id, filtered by `petId` and `complete`, one page at a time; ' +
      '`X-Total-Count` holds the number of matching orders over all pages.',
    query: z.object({
      petId: queryParam(
        'petId',
        { type: 'integer', format: 'int64', minimum: 1 },
        'Only the orders of this pet.',
      ),
      complete: queryParam('complete', { type: 'boolean' }, 'Only complete or incomplete orders.'),
      ...pagingQuery,
    }),
    success: page(z.array(Order), 'A page of the orders that match.'),
  },
  async (c, { query }, { domain }) => {
    const filter = { petId: query.petId, complete: queryBoolean(query.complete, 'complete') };
    const [rows, total] = await Promise.all([
      orders.listOrders(domain, filter, pageOf(query)),
      orders.countOrders(domain, filter),
    ]);
    return sendPage(c, rows.map(presentOrder), total);
  },
);

export const placeOrder = defineRoute(
  {
    method: 'post',
    path: '/store/orders',
    operationId: 'placeOrder',
    scope: 'orders:write',
    tag: 'store',
    summary: 'Place an order',
    description:
      'Takes the quantity from the stock of an available pet, atomically; taking the last unit ' +
      'makes the pet `sold`.',
    body: NewOrder,
    success: created(Order, 'The new order, not complete.'),
    errors: ['UNKNOWN_PET', 'PET_NOT_AVAILABLE', 'INSUFFICIENT_STOCK'],
  },
  async (c, { body }, { domain }) => {
    const order = await orders.placeOrder(domain, body);
    return sendCreated(c, presentOrder(order), order);
  },
);

export const getOrder = defineRoute(
  {
    method: 'get',
    path: '/store/orders/{orderId}',
    operationId: 'getOrder',
    scope: 'orders:read',
    tag: 'store',
    summary: 'Read an order',
    description: 'One order by id; 404 ORDER_NOT_FOUND when there is none.',
    params: orderPath,
    success: one(Order, 'The order.'),
    errors: ['ORDER_NOT_FOUND'],
  },
  async (c, { params }, { domain }) => {
    const id = parseId(params.orderId, 'orderId');
    const order = (await orders.getOrder(domain, id)) ?? notFound('order', id);
    return sendResource(c, presentOrder(order), order);
  },
);

export const updateOrder = defineRoute(
  {
    method: 'patch',
    path: '/store/orders/{orderId}',
    operationId: 'updateOrder',
    scope: 'orders:write',
    tag: 'store',
    summary: 'Change the ship date or complete an order',
    description:
      'Only the given fields change. Completing is final: reopening a complete order or moving ' +
      'its ship date is `ORDER_ALREADY_COMPLETE`.',
    params: orderPath,
    body: OrderUpdate,
    success: one(Order, 'The order as changed.'),
    errors: ['ORDER_NOT_FOUND', 'ORDER_ALREADY_COMPLETE'],
  },
  async (c, { params, body, ifVersion }, { domain }) => {
    const id = parseId(params.orderId, 'orderId');
    const order = await orders.updateOrder(domain, id, body, ifVersion);
    return sendResource(c, presentOrder(order), order);
  },
);

export const cancelOrder = defineRoute(
  {
    method: 'delete',
    path: '/store/orders/{orderId}',
    operationId: 'cancelOrder',
    scope: 'orders:write',
    tag: 'store',
    summary: 'Cancel an order',
    description:
      'Returns the units to stock and makes a `sold` pet `available` again. A complete order ' +
      'cannot be cancelled (409 `ORDER_ALREADY_COMPLETE`). The example id, 3, is an incomplete ' +
      'sample order (the example of `PATCH` completes order 1).',
    params: z.object({ orderId: idParam('orderId', 'The order id.', 3) }),
    success: noContent('Cancelled.'),
    errors: ['ORDER_NOT_FOUND', 'ORDER_ALREADY_COMPLETE'],
  },
  async (c, { params, ifVersion }, { domain }) => {
    await orders.cancelOrder(domain, parseId(params.orderId, 'orderId'), ifVersion);
    return sendNoContent(c);
  },
);
