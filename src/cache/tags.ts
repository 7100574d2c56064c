import type { Change } from '../domain/changes.js';

/**
 * What a cached response depends on, for eviction: `pet:42` (that pet), `pet:*` (which pets exist
 * and in what state: every list of pets, and every lookup that found none), and `*` (anything:
 * a response with a type the cache does not know is evicted by every write).
 */
export type Tag = string;

export const ANY: Tag = '*';

export type Entity = Change['entity'];

export const entityTag = (entity: Entity, id: bigint | number | string): Tag => `${entity}:${id}`;
export const listTag = (entity: Entity): Tag => `${entity}:*`;

/**
 * The tags a committed change evicts: its entity, and every list of its kind (a new pet joins
 * lists; a status or category change moves a pet between filtered lists; counts change).
 */
export function changeTags(change: Change): Tag[] {
  const id = change.entity === 'inventory' ? change.petId : change.id;
  return [entityTag(change.entity, id), listTag(change.entity), ANY];
}
