import { requireScope } from '../domain/authorization.js';
import type { ChangeKind as Kind } from '../domain/changes.js';
import { parseId } from '../domain/ids.js';
import { builder } from '../graphql/kit/builder.js';
import { ChangeKind } from '../graphql/kit/change-kind.js';
import { changeStream, delivered } from '../graphql/kit/change-stream.js';
import { afterDescription, cursorDescription } from '../graphql/kit/event-cursor.js';
import { needs } from '../graphql/kit/scopes.js';
import { Order } from './graphql.js';

interface OrderChangeEvent {
  kind: Kind;
  id: bigint;
  cursor: string;
}

const OrderChange = builder.objectRef<OrderChangeEvent>('OrderChange').implement({
  fields: (t) => ({
    kind: t.field({ type: ChangeKind, resolve: (change) => change.kind }),
    id: t.id({ resolve: (change) => String(change.id) }),
    cursor: t.exposeString('cursor', { description: cursorDescription }),
    // Read when the event is delivered; null once the order is cancelled.
    order: t.field({
      type: Order,
      nullable: true,
      resolve: (change, _args, ctx) =>
        change.kind === 'deleted' ? null : ctx.loaders.order.load(change.id),
    }),
  }),
});

builder.subscriptionFields((t) => ({
  orderChanged: t.field({
    ...needs('orders:read'),
    type: OrderChange,
    directives: { experimental: {} },
    description:
      "Orders placed, updated or cancelled (one order with `id`, a pet's with `petId`); needs orders:read. Experimental.",
    args: {
      id: t.arg.id(),
      petId: t.arg.id(),
      after: t.arg.string({ description: afterDescription }),
    },
    subscribe: (_root, args, ctx) => {
      // Checked when subscribing (resuming included): a refused subscription never opens.
      requireScope(ctx.domain.viewer, 'orders:read');
      const id = args.id == null ? undefined : parseId(args.id, 'id');
      const petId = args.petId == null ? undefined : parseId(args.petId, 'petId');
      return changeStream(
        ctx,
        {
          select: (change) =>
            change.entity === 'order' &&
            (id === undefined || change.id === id) &&
            (petId === undefined || change.petId === petId)
              ? { kind: change.kind, id: change.id }
              : undefined,
          deliver: (event, cursor) => ({ ...event, cursor }),
        },
        args.after,
      );
    },
    resolve: (event: OrderChangeEvent | Error) => delivered(event),
  }),
}));
