/**
 * A copy of a per-request object (a result, its extensions) with `members` set on it. Not
 * `{ ...object, member }`: in the server (Node 20), that spread gave every copy of a result a
 * hidden class of its own, and every later read of one (the result hooks, Yoga's serialisation)
 * missed its inline cache; copies assigned onto a new object share one per shape (bench/rounds.md in git history,
 * ninth round).
 */
export const copyWith = <T extends object, M extends object>(object: T, members: M): T & M =>
  Object.assign({}, object, members);
