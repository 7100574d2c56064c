import type { FieldNode } from 'graphql';
import { getNamedType, getNullableType, isListType, isObjectType } from 'graphql';
import type { Collector } from './walk.js';

/**
 * The small facts of a plan, each collected from the walk's events. A field met more than once
 * (a fragment spread under several conditions) counts once where a fact counts occurrences.
 */

/**
 * The scopes an operation's fields declare (`extensions.scope`, kit/scopes.ts), through the
 * fragments it spreads. Every selected field counts, `@skip` and `@include` or not: an answer never
 * holds more than this asks.
 */
export function scopesCollector(): Collector & { scopes: Set<string> } {
  const scopes = new Set<string>();
  return {
    scopes,
    field({ definition }) {
      const scope = definition?.extensions?.scope;
      if (typeof scope === 'string') scopes.add(scope);
    },
  };
}

/**
 * `Type.field` for each deprecated field the operation selects and `field.argument` for each
 * deprecated argument it passes, once per place in the document.
 */
export function deprecatedCollector(): Collector & { uses: string[] } {
  const uses: string[] = [];
  const met = new Set<FieldNode>();
  return {
    uses,
    field({ node, parent, definition }) {
      if (!definition || met.has(node)) return;
      met.add(node);
      if (definition.deprecationReason != null) uses.push(`${parent.name}.${definition.name}`);
      for (const argument of node.arguments ?? []) {
        const argumentDefinition = definition.args.find((arg) => arg.name === argument.name.value);
        if (argumentDefinition?.deprecationReason != null)
          uses.push(`${definition.name}.${argumentDefinition.name}`);
      }
    },
  };
}

/** The schema coordinates of the list fields of object types an operation selects. */
export function listsCollector(): Collector & { lists: Set<string> } {
  const lists = new Set<string>();
  return {
    lists,
    field({ parent, definition }) {
      if (definition && isObjectType(parent) && isListType(getNullableType(definition.type)))
        lists.add(`${parent.name}.${definition.name}`);
    },
  };
}

/** An object type that a selected field returns, and whether as a list. */
export interface ReturnedType {
  readonly name: string;
  readonly list: boolean;
}

/** The object types an operation's fields return (what the response cache's tags follow). */
export function returnedTypesCollector(): Collector & { returned(): ReturnedType[] } {
  const found = new Map<string, ReturnedType>();
  return {
    field({ definition }) {
      if (!definition) return;
      const named = getNamedType(definition.type);
      if (!isObjectType(named)) return;
      const list = isListType(getNullableType(definition.type));
      found.set(`${named.name}${list ? '[]' : ''}`, { name: named.name, list });
    },
    returned: () => [...found.values()],
  };
}

/** The operation's top fields (through fragments, each field once), and whether all are introspection. */
export function topCollector(): Collector & {
  top: { fields: number; introspectionOnly: boolean };
} {
  const met = new Set<FieldNode>();
  const introspection = new Set(['__schema', '__type', '__typename']);
  const top = { fields: 0, introspectionOnly: true };
  return {
    top,
    field({ depth, direct, node }) {
      if (depth !== 0 || met.has(node)) return;
      met.add(node);
      top.fields++;
      if (direct && !introspection.has(node.name.value)) top.introspectionOnly = false;
    },
    fragment({ depth, direct }) {
      if (depth === 0 && direct) top.introspectionOnly = false;
    },
  };
}
