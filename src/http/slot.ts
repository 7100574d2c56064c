/**
 * A value one part of the app keeps on an object it does not own (a request, an answer, an
 * operation's context) for as long as that object lives: a property under a key of its own, which
 * no other code sees. Not a WeakMap: for an object made per request that is an entry (an
 * ephemeron) per request, which every scavenge has to visit; one such entry cost a REST read a
 * tenth of its CPU (bench/rounds.md in git history, fifteenth round).
 */
export interface Slot<Owner extends object, Value> {
  get(owner: Owner): Value | undefined;
  set(owner: Owner, value: Value): void;
}

export function slot<Owner extends object, Value>(name: string): Slot<Owner, Value> {
  const key = Symbol(name);
  return {
    get: (owner) => (owner as Record<symbol, Value | undefined>)[key],
    set: (owner, value) => {
      (owner as Record<symbol, Value>)[key] = value;
    },
  };
}
