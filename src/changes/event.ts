import type { EventRow, StoredEvent } from '../db/change-events.js';
import type { Change, ChangeKind } from '../domain/changes.js';
import { DomainError, validationFailed } from '../errors/catalogue.js';

/** A committed change as the outbox delivers it: its place in the one order of events. */
export interface ChangeEvent {
  /** The event id, which is also the cursor a subscriber resumes from (`cursorOf`). */
  readonly id: bigint;
  /** Undefined for a change this version does not know (a newer replica's): no one selects it. */
  readonly change: Change | undefined;
  /** The process that made the write. */
  readonly origin: number;
  /** The write's trace context, when it was traced. */
  readonly cause: string | undefined;
}

export function toRow(change: Change): EventRow {
  switch (change.entity) {
    case 'order':
      return { entity: change.entity, kind: change.kind, entityId: change.id, petId: change.petId };
    case 'inventory':
      return { entity: change.entity, kind: change.kind, entityId: change.petId, petId: null };
    default:
      return { entity: change.entity, kind: change.kind, entityId: change.id, petId: null };
  }
}

export function fromRow(row: StoredEvent): ChangeEvent {
  const kind = row.kind as ChangeKind;
  let change: Change | undefined;
  switch (row.entity) {
    case 'pet':
    case 'category':
      change = { entity: row.entity, kind, id: row.entityId };
      break;
    case 'order':
      change = { entity: 'order', kind, id: row.entityId, petId: row.petId ?? 0n };
      break;
    case 'inventory':
      change = { entity: 'inventory', kind, petId: row.entityId };
      break;
    default:
      change = undefined;
  }
  return { id: row.id, change, origin: row.origin, cause: row.cause ?? undefined };
}

/** A cursor as clients see it: the event id in decimal (also the SSE `id:`). */
export const cursorOf = (id: bigint): string => String(id);

const MAX_ID = 2n ** 63n - 1n;

/** The event id a cursor names; VALIDATION_FAILED for anything that is not one. */
export function parseCursor(value: string, name: string): bigint {
  const id = /^\d{1,19}$/.test(value) ? BigInt(value) : undefined;
  if (id === undefined || id > MAX_ID)
    throw validationFailed(
      `${name} must be an event cursor: the extensions.cursor (or SSE id) of an event received`,
    );
  return id;
}

/** 410: events after the cursor are no longer kept (or the cursor names no event of this store). */
export function cursorExpired(cursor: bigint): DomainError {
  return new DomainError(
    'EVENT_CURSOR_EXPIRED',
    `The events after cursor ${cursor} are no longer kept: read the data again, then subscribe without a cursor`,
  );
}
