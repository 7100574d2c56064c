import { encodeCursor } from '../src/graphql/kit/connection.js';

/**
 * The GraphQL operations the benchmark sends. The baseline recognises them by their exact text, the
 * way a persisted-query table would, so it never parses GraphQL.
 */

export const petById = 'query PetById($id: ID!) { pet(id: $id) { id name categoryId status } }';

// The page size is a variable, as clients usually send it (the cost rule counts it either way).
export const petsPage =
  'query PetsPage($after: String, $first: Int = 100) { pets(first: $first, after: $after) { edges { node { id name status category { name } inventory { quantity } } } pageInfo { hasNextPage endCursor } } }';

/** The same page with each pet's stock deferred (@defer, src/incremental/). */
export const petsPageDeferred =
  'query PetsPageDeferred($after: String, $first: Int = 100) { pets(first: $first, after: $after) { edges { node { id name status category { name } ... @defer(label: "stock") { inventory { quantity } } } } pageInfo { hasNextPage endCursor } } }';

export const placeOrder =
  'mutation PlaceOrder($input: NewOrder!) { placeOrder(input: $input) { id petId quantity complete } }';

/** A GraphQL cursor, written by the product's own code (the id of the last pet seen). */
export function cursorOf(id: bigint | number): string {
  return encodeCursor(BigInt(id));
}
