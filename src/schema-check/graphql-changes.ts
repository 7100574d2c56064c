import { type Change, CriticalityLevel, diff } from '@graphql-inspector/core';
import {
  buildSchema,
  type GraphQLNamedType,
  type GraphQLSchema,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isIntrospectionType,
  isObjectType,
} from 'graphql';
import type { Level, SchemaChange } from './changes.js';

const levels: Record<CriticalityLevel, Level> = {
  [CriticalityLevel.Breaking]: 'breaking',
  [CriticalityLevel.Dangerous]: 'dangerous',
  [CriticalityLevel.NonBreaking]: 'safe',
};

/**
 * A change's path as a schema coordinate: graphql-inspector writes `Type`, `Type.field` (a field,
 * an input field or an enum value) and `Type.field.argument`; the last is `Type.field(argument:)`.
 */
export function coordinateOf(path: string | undefined): string | undefined {
  const parts = path?.split('.') ?? [];
  // A directive's change (`Pet.name.@deprecated`) is about no coordinate of its own.
  if (!path || parts.some((part) => part.startsWith('@'))) return undefined;
  if (parts.length === 3) return `${parts[0]}.${parts[1]}(${parts[2]}:)`;
  return parts.length <= 2 ? path : undefined;
}

/**
 * Whether every field, argument and input field of `schema` that leads to `type` is deprecated:
 * then the type is deprecated too, in effect (GraphQL has no `@deprecated` on a type), and can go
 * with the last of them.
 */
function onlyReachedThroughDeprecated(schema: GraphQLSchema, type: GraphQLNamedType): boolean {
  let reached = false;
  for (const holder of Object.values(schema.getTypeMap())) {
    if (isIntrospectionType(holder)) continue;
    if (isObjectType(holder) || isInterfaceType(holder)) {
      for (const field of Object.values(holder.getFields())) {
        if (getNamedType(field.type) === type) {
          reached = true;
          if (field.deprecationReason == null) return false;
        }
        for (const arg of field.args) {
          if (getNamedType(arg.type) !== type) continue;
          reached = true;
          if (arg.deprecationReason == null && field.deprecationReason == null) return false;
        }
      }
    } else if (isInputObjectType(holder)) {
      for (const field of Object.values(holder.getFields())) {
        if (getNamedType(field.type) !== type) continue;
        reached = true;
        if (field.deprecationReason == null) return false;
      }
    }
  }
  return reached;
}

/** Whether the element a coordinate names was deprecated in `schema`. */
export function deprecatedIn(schema: GraphQLSchema, coordinate: string): boolean {
  const argument = /^(\w+)\.(\w+)\((\w+):\)$/.exec(coordinate);
  const [typeName = '', member] = argument ? [] : coordinate.split('.');
  if (argument) {
    const [, holder = '', fieldName = '', name] = argument;
    const type = schema.getType(holder);
    if (!isObjectType(type) && !isInterfaceType(type)) return false;
    const field = type.getFields()[fieldName];
    const arg = field?.args.find((candidate) => candidate.name === name);
    return (
      arg?.deprecationReason != null || (arg !== undefined && field?.deprecationReason != null)
    );
  }
  const type = schema.getType(typeName);
  if (!type) return false;
  if (member === undefined) return onlyReachedThroughDeprecated(schema, type);
  if (isObjectType(type) || isInterfaceType(type) || isInputObjectType(type))
    return type.getFields()[member]?.deprecationReason != null;
  if (isEnumType(type)) return type.getValue(member)?.deprecationReason != null;
  return false;
}

/** Every change from the base SDL to the new one, as graphql-inspector classifies it. */
export async function graphqlChanges(baseSdl: string, newSdl: string): Promise<SchemaChange[]> {
  const base = buildSchema(baseSdl);
  const changes: Change[] = await diff(base, buildSchema(newSdl));
  return changes.map((change) => {
    const coordinate = coordinateOf(change.path);
    return {
      api: 'graphql',
      level: levels[change.criticality.level],
      kind: change.type,
      location: change.path ?? '',
      message: change.message,
      usageKeys: coordinate ? [coordinate] : [],
      deprecatedInBase: coordinate !== undefined && deprecatedIn(base, coordinate),
    };
  });
}
