import { parseId } from '../domain/ids.js';
import { builder } from '../graphql/kit/builder.js';
import {
  connectionArgs,
  connectionType,
  resolveListConnection,
} from '../graphql/kit/connection.js';
import { connectionCost, mutationCost } from '../graphql/kit/cost-directives.js';
import { needs } from '../graphql/kit/scopes.js';
import {
  ifVersionDescription,
  ifVersionOf,
  resolveVersion,
  versionDescription,
} from '../graphql/kit/version.js';
import { cancelOrder, countOrders, listOrders, placeOrder, updateOrder } from './rules.js';

export const Order = builder.prismaObject('Order', {
  fields: (t) => ({
    id: t.id({ resolve: (order) => String(order.id) }),
    petId: t.id({ resolve: (order) => String(order.petId) }),
    quantity: t.exposeInt('quantity'),
    shipDate: t.expose('shipDate', { type: 'DateTime', nullable: true }),
    complete: t.exposeBoolean('complete'),
    version: t.string({ description: versionDescription('order'), resolve: resolveVersion }),
  }),
});

export const OrderConnection = connectionType('Order', Order);

const NewOrder = builder.inputType('NewOrder', {
  fields: (t) => ({
    petId: t.id({ required: true }),
    quantity: t.int({ required: true }),
    shipDate: t.field({ type: 'DateTime' }),
  }),
});

const OrderUpdate = builder.inputType('OrderUpdate', {
  fields: (t) => ({
    shipDate: t.field({ type: 'DateTime' }),
    complete: t.boolean(),
  }),
});

builder.queryFields((t) => ({
  order: t.field({
    ...needs('orders:read'),
    type: Order,
    nullable: true,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => ctx.loaders.order.load(parseId(args.id, 'id')),
  }),
  orders: t.field({
    ...needs('orders:read'),
    type: OrderConnection,
    // Nullable: an anonymous document asking for pets and orders keeps its pets.
    nullable: true,
    args: { ...connectionArgs, petId: t.arg.id(), complete: t.arg.boolean() },
    directives: connectionCost,
    resolve: (_root, args, ctx) => {
      const filter = { petId: args.petId, complete: args.complete };
      return resolveListConnection(args, {
        list: (page) => listOrders(ctx.domain, filter, page),
        count: () => countOrders(ctx.domain, filter),
        idOf: (order) => order.id,
      });
    },
  }),
}));

builder.mutationFields((t) => ({
  placeOrder: t.field({
    ...needs('orders:write'),
    directives: mutationCost,
    type: Order,
    args: { input: t.arg({ type: NewOrder, required: true }) },
    resolve: (_root, args, ctx) => placeOrder(ctx.domain, args.input),
  }),
  updateOrder: t.field({
    ...needs('orders:write'),
    directives: mutationCost,
    type: Order,
    args: {
      id: t.arg.id({ required: true }),
      input: t.arg({ type: OrderUpdate, required: true }),
      ifVersion: t.arg.string({ description: ifVersionDescription('order') }),
    },
    resolve: (_root, args, ctx) =>
      updateOrder(ctx.domain, args.id, args.input, ifVersionOf(args.ifVersion)),
  }),
  cancelOrder: t.id({
    ...needs('orders:write'),
    directives: mutationCost,
    args: {
      id: t.arg.id({ required: true }),
      ifVersion: t.arg.string({ description: ifVersionDescription('order') }),
    },
    resolve: async (_root, args, ctx) =>
      String(await cancelOrder(ctx.domain, args.id, ifVersionOf(args.ifVersion))),
  }),
}));
