import type { GraphQLError } from 'graphql';
import type { Argument, IncrementalSite } from '../graphql/plan/index.js';
import { CompleteResult, type Payload2022, valueAt } from './merge.js';

type Path = readonly (string | number)[];

interface Pending {
  id: string;
  path: Path;
  label?: string;
}

/** A part of a streamed answer in graphql-js 17's format (`incrementalSpec=v0.2`). */
export interface PayloadV02 {
  data?: Record<string, unknown> | null;
  errors?: readonly GraphQLError[];
  extensions?: Record<string, unknown>;
  pending?: Pending[];
  incremental?: {
    id: string;
    data?: Record<string, unknown> | null;
    items?: readonly unknown[];
    errors?: readonly GraphQLError[];
  }[];
  completed?: { id: string; errors?: readonly GraphQLError[] }[];
  hasNext: boolean;
}

const read = <T>(value: Argument<T>, variables: Record<string, unknown>): unknown =>
  typeof value === 'object' && value !== null && 'variable' in value
    ? (variables[value.variable] ?? value.fallback)
    : value;

/** Whether a site delivers incrementally with these variables (`if`, `@skip`, `@include`). */
function active(site: IncrementalSite, variables: Record<string, unknown>): boolean {
  if (site.runs.leftOut || read(site.enabled, variables) === false) return false;
  return site.runs.conditions.every(
    (condition) =>
      ((variables[condition.variable] ?? condition.fallback) === true) === condition.runsWhen,
  );
}

/** The concrete paths a site's response keys lead to in the data (each list item its own). */
function concretePaths(data: unknown, keys: readonly string[], expandLast: boolean): Path[] {
  const found: Path[] = [];
  const descend = (value: unknown, at: number, path: (string | number)[]) => {
    if (Array.isArray(value) && (at < keys.length || expandLast)) {
      value.forEach((item, index) => {
        descend(item, at, [...path, index]);
      });
      return;
    }
    if (value === null || typeof value !== 'object') return;
    if (at === keys.length) {
      found.push(path);
      return;
    }
    const key = keys[at] as string;
    const next = (value as Record<string, unknown>)[key];
    if (!expandLast && at === keys.length - 1) {
      if (Array.isArray(next)) found.push([...path, key]);
      return;
    }
    descend(next, at + 1, [...path, key]);
  };
  descend(data, 0, []);
  return found;
}

const keyOf = (kind: string, path: Path, label: string | undefined) =>
  `${kind}\u0000${label ?? ''}\u0000${JSON.stringify(path)}`;

/**
 * A 2022-format stream (the standard executor's) in graphql-js 17's format: each deferred
 * fragment and streamed list is announced in `pending` (with an id, its path and label) in the
 * part that first holds the object it belongs to, its data or items arrive by that id, and a
 * fragment is `completed` in the part that brings it, a stream in the last part. What is
 * pending is read from the operation's `@defer`/`@stream` sites (its plan) against the data so
 * far; a part the sites did not foresee (a fragment spread in two places) is announced where it
 * arrives.
 */
export async function* inSpecV02(
  source: AsyncIterable<Payload2022>,
  sites: readonly IncrementalSite[],
  variables: Record<string, unknown>,
): AsyncGenerator<PayloadV02> {
  const complete = new CompleteResult();
  const announced = new Map<string, Pending & { kind: string }>();
  const open = new Set<string>();
  let ids = 0;
  const announce = (kind: string, path: Path, label: string | undefined, into: Pending[]) => {
    const key = keyOf(kind, path, label);
    const known = announced.get(key);
    if (known) return known;
    const pending = { id: String(ids++), path, ...(label === undefined ? {} : { label }) };
    announced.set(key, { ...pending, kind });
    open.add(pending.id);
    into.push(pending);
    return { ...pending, kind };
  };
  const discover = (into: Pending[]) => {
    for (const site of sites) {
      if (!active(site, variables)) continue;
      if (site.kind === 'defer') {
        for (const path of concretePaths(complete.data, site.path, true))
          announce('defer', path, site.label, into);
      } else {
        const initial = Number(read(site.initialCount, variables) ?? 0);
        for (const path of concretePaths(complete.data, site.path, false)) {
          const list = valueAt(complete.data, path);
          if (Array.isArray(list) && list.length >= initial)
            announce('stream', path, site.label, into);
        }
      }
    }
  };
  for await (const payload of source) {
    complete.add(payload);
    const pending: Pending[] = [];
    if (payload.hasNext !== false) discover(pending);
    if ('data' in payload) {
      const { incremental: _none, ...initial } = payload;
      yield {
        ...initial,
        ...(pending.length > 0 ? { pending } : {}),
        hasNext: payload.hasNext ?? false,
      };
      continue;
    }
    const incremental: NonNullable<PayloadV02['incremental']> = [];
    const completed: NonNullable<PayloadV02['completed']> = [];
    for (const entry of payload.incremental ?? []) {
      if (entry.items) {
        const { id } = announce('stream', entry.path.slice(0, -1), entry.label, pending);
        incremental.push({
          id,
          items: entry.items,
          ...(entry.errors ? { errors: entry.errors } : {}),
        });
        continue;
      }
      const { id } = announce('defer', entry.path, entry.label, pending);
      // A fragment whose non-null field failed has no data: it completes with its errors.
      if (entry.data)
        incremental.push({
          id,
          data: entry.data,
          ...(entry.errors ? { errors: entry.errors } : {}),
        });
      if (open.delete(id))
        completed.push({ id, ...(!entry.data && entry.errors ? { errors: entry.errors } : {}) });
    }
    if (payload.hasNext === false) {
      // What never came (the time limit ended the answer) completes with the reason.
      for (const id of open)
        completed.push({ id, ...(payload.errors ? { errors: payload.errors } : {}) });
      open.clear();
    }
    yield {
      ...(payload.errors && completed.length === 0 ? { errors: payload.errors } : {}),
      ...(pending.length > 0 ? { pending } : {}),
      ...(incremental.length > 0 ? { incremental } : {}),
      ...(completed.length > 0 ? { completed } : {}),
      ...(payload.extensions ? { extensions: payload.extensions } : {}),
      hasNext: payload.hasNext ?? false,
    };
  }
}
