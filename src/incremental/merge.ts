import type { ExecutionResult, GraphQLError } from 'graphql';

/** A part of a streamed answer in the 2022 format, as the standard executor yields it. */
export interface Payload2022 {
  data?: Record<string, unknown> | null;
  errors?: readonly GraphQLError[];
  extensions?: Record<string, unknown>;
  hasNext?: boolean;
  incremental?: readonly IncrementalEntry[];
}

export interface IncrementalEntry {
  data?: Record<string, unknown> | null;
  items?: readonly unknown[];
  path: readonly (string | number)[];
  label?: string;
  errors?: readonly GraphQLError[];
  extensions?: Record<string, unknown>;
}

type Json = Record<string | number, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null;

/** Merges `source` into `target` (objects key by key, lists item by item). */
function deepMerge(target: Json, source: Json): void {
  for (const [key, value] of Object.entries(source)) {
    const present = target[key];
    if (isObject(present) && isObject(value)) deepMerge(present, value);
    else target[key] = value;
  }
}

/** The value at a path of the data, or undefined. */
export function valueAt(data: unknown, path: readonly (string | number)[]): unknown {
  let value = data;
  for (const key of path) {
    if (!isObject(value)) return undefined;
    value = value[key];
  }
  return value;
}

/**
 * The complete result of a streamed answer, built as its parts arrive: what the response cache
 * keeps and the actual cost reads. The data is the client's to merge too: a deferred fragment's
 * fields go into the object at its path, streamed items into the list at theirs.
 */
export class CompleteResult {
  data: Record<string, unknown> | null | undefined;
  readonly errors: GraphQLError[] = [];
  /** The first part's extensions (its cost report, warnings). */
  extensions: Record<string, unknown> | undefined;
  /** Whether a part said no more follow. */
  done = false;

  add(payload: Payload2022): void {
    if ('data' in payload) {
      this.data = payload.data ? structuredClone(payload.data) : payload.data;
      this.extensions = payload.extensions;
    }
    if (payload.errors) this.errors.push(...payload.errors);
    for (const entry of payload.incremental ?? []) {
      if (entry.errors) this.errors.push(...entry.errors);
      if (entry.items) {
        const list = valueAt(this.data, entry.path.slice(0, -1));
        const start = entry.path.at(-1);
        if (Array.isArray(list) && typeof start === 'number')
          list.splice(start, entry.items.length, ...structuredClone(entry.items));
      } else if (entry.data) {
        const target = valueAt(this.data, entry.path);
        if (isObject(target)) deepMerge(target, structuredClone(entry.data));
      }
    }
    if (payload.hasNext === false) this.done = true;
  }

  /** The result as one answer would have it. */
  result(): ExecutionResult {
    return {
      data: this.data ?? null,
      ...(this.errors.length > 0 ? { errors: this.errors } : {}),
      ...(this.extensions ? { extensions: this.extensions } : {}),
    };
  }
}

/**
 * The parts of a streamed answer as they go by: `first` may replace the first, and `done`, given
 * the complete result, the last (it is never called when the client leaves before).
 */
export async function* collecting<T extends Payload2022>(
  source: AsyncIterable<T>,
  done: (complete: CompleteResult, last: T) => Promise<T | undefined> | T | undefined,
  first?: (payload: T) => Promise<T> | T,
): AsyncGenerator<T> {
  const complete = new CompleteResult();
  let firstSeen = false;
  for await (const payload of source) {
    complete.add(payload);
    let part = payload;
    if (!firstSeen && first) part = await first(part);
    firstSeen = true;
    if (complete.done) part = (await done(complete, part)) ?? part;
    yield part;
  }
}
