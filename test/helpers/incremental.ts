/** Readers of streamed GraphQL answers, as a client without a library reads them. */

/** The JSON parts of a `multipart/mixed` answer (boundary `-`), in order. */
export function multipartParts(body: string): Record<string, unknown>[] {
  const parts: Record<string, unknown>[] = [];
  for (const chunk of body.split('\r\n---')) {
    const start = chunk.indexOf('\r\n\r\n');
    if (start < 0) continue;
    parts.push(JSON.parse(chunk.slice(start + 4)));
  }
  return parts;
}

/** The `next` events' JSON of a `text/event-stream` answer, and whether it ended with `complete`. */
export function eventStreamParts(body: string): {
  parts: Record<string, unknown>[];
  completed: boolean;
} {
  const parts: Record<string, unknown>[] = [];
  let completed = false;
  for (const message of body.split('\n\n')) {
    const lines = message.split('\n');
    const event = lines.find((line) => line.startsWith('event: '))?.slice(7);
    const data = lines
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).trimStart())
      .join('\n');
    if (event === 'next') parts.push(JSON.parse(data));
    if (event === 'complete') completed = true;
  }
  return { parts, completed };
}

export const DEFER_2022 = 'multipart/mixed;deferSpec=20220824, application/json;q=0.9';
export const DEFER_V02 = 'multipart/mixed;incrementalSpec=v0.2, application/json;q=0.9';

type Json = Record<string, unknown>;

const at = (data: unknown, path: readonly (string | number)[]) =>
  path.reduce<unknown>((value, key) => (value as Record<string, unknown>)?.[key], data);

function mergeInto(target: Json, source: Json): void {
  for (const [key, value] of Object.entries(source)) {
    const present = target[key];
    if (present && value && typeof present === 'object' && typeof value === 'object')
      mergeInto(present as Json, value as Json);
    else target[key] = value;
  }
}

/**
 * The data a client assembles from a streamed answer's parts, in either format, checking the
 * format's shape as it goes: the 2022 one names no `pending` and no `id`; graphql-js 17's names
 * every incremental part by an id announced in `pending` (in that part or before) and closes each
 * pending id once with `completed`. Throws on a part that breaks the shape.
 */
export function assemble(parts: Json[], spec: '2022' | 'v0.2'): Json {
  const [first, ...rest] = parts;
  if (!first || !('data' in first)) throw new Error('the first part has no data');
  const data = structuredClone(first.data) as Json;
  const pending = new Map<string, { path: (string | number)[] }>();
  const completed = new Set<string>();
  const fail = (message: string) => {
    throw new Error(`${message}: ${JSON.stringify(parts)}`);
  };
  parts.forEach((part, index) => {
    const last = index === parts.length - 1;
    if (part.hasNext !== !last) fail(`part ${index} has hasNext ${part.hasNext}`);
    if (spec === '2022') {
      if ('pending' in part || 'completed' in part) fail('a 2022 part names pending or completed');
      for (const entry of (part.incremental ?? []) as Json[])
        if ('id' in entry || 'subPath' in entry) fail('a 2022 part names an id');
      return;
    }
    for (const announced of (part.pending ?? []) as Json[]) {
      const id = announced.id as string;
      if (pending.has(id)) fail(`id ${id} announced twice`);
      pending.set(id, { path: announced.path as (string | number)[] });
    }
  });
  for (const part of rest) {
    if (spec === 'v0.2') {
      for (const announced of (part.pending ?? []) as Json[])
        pending.set(announced.id as string, announced as never);
    }
    for (const entry of (part.incremental ?? []) as Json[]) {
      const base =
        spec === '2022'
          ? (entry.path as (string | number)[])
          : (pending.get(entry.id as string)?.path ?? fail(`id ${entry.id} was never announced`));
      const path = [...(base as (string | number)[]), ...((entry.subPath as []) ?? [])];
      if (entry.items) {
        const listPath = spec === '2022' ? path.slice(0, -1) : path;
        const list = at(data, listPath) as unknown[];
        list.push(...(entry.items as unknown[]));
      } else if (entry.data) {
        mergeInto(at(data, path) as Json, entry.data as Json);
      }
    }
    for (const done of (part.completed ?? []) as Json[]) {
      const id = done.id as string;
      if (!pending.has(id) || completed.has(id)) fail(`id ${id} completed without being pending`);
      completed.add(id);
    }
  }
  if (spec === 'v0.2' && completed.size !== pending.size) fail('a pending id was never completed');
  return data;
}

/** A deferred named fragment: what the incremental tests ask for over every transport. */
export const PetStock = `query PetStock($id: ID!) {
  pet(id: $id) { id name ...Stock @defer(label: "stock") }
}
fragment Stock on Pet { inventory { quantity } category { name } }`;

/** A streamed page whose items each defer their stock. */
export const PagedStream = `query Page($categoryId: ID) {
  pets(first: 5, categoryId: $categoryId) {
    totalCount
    edges @stream(initialCount: 2, label: "rest") {
      node { id name ... @defer(label: "inventory") { inventory { quantity } } }
    }
  }
}`;
