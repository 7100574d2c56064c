import type { ChangeKind as Kind } from '../domain/changes.js';
import { parseId } from '../domain/ids.js';
import { builder } from '../graphql/kit/builder.js';
import { ChangeKind } from '../graphql/kit/change-kind.js';
import { changeStream, delivered } from '../graphql/kit/change-stream.js';
import { afterDescription, cursorDescription } from '../graphql/kit/event-cursor.js';
import { Pet } from './graphql.js';

interface PetChangeEvent {
  kind: Kind;
  id: bigint;
  cursor: string;
}

const PetChange = builder.objectRef<PetChangeEvent>('PetChange').implement({
  fields: (t) => ({
    kind: t.field({ type: ChangeKind, resolve: (change) => change.kind }),
    id: t.id({ resolve: (change) => String(change.id) }),
    cursor: t.exposeString('cursor', { description: cursorDescription }),
    // Read when the event is delivered; null once the pet is deleted.
    pet: t.field({
      type: Pet,
      nullable: true,
      resolve: (change, _args, ctx) =>
        change.kind === 'deleted' ? null : ctx.loaders.pet.load(change.id),
    }),
  }),
});

builder.subscriptionFields((t) => ({
  petChanged: t.field({
    type: PetChange,
    directives: { experimental: {} },
    description: 'Pets created, updated or deleted (one pet with `id`). Experimental.',
    args: { id: t.arg.id(), after: t.arg.string({ description: afterDescription }) },
    subscribe: (_root, args, ctx) => {
      const id = args.id == null ? undefined : parseId(args.id, 'id');
      return changeStream(
        ctx,
        {
          select: (change) =>
            change.entity === 'pet' && (id === undefined || change.id === id)
              ? { kind: change.kind, id: change.id }
              : undefined,
          deliver: (event, cursor) => ({ ...event, cursor }),
        },
        args.after,
      );
    },
    resolve: (event: PetChangeEvent | Error) => delivered(event),
  }),
}));
