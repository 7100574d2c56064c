import {
  type ASTNode,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  Kind,
  TypeInfo,
  visit,
  visitWithTypeInfo,
} from 'graphql';
import { operationOf } from './operation.js';

/**
 * The scopes an operation's fields declare (`extensions.scope`, schema/scopes.ts), through the
 * fragments it spreads. Every selected field counts, `@skip` and `@include` or not: an answer never
 * holds more than this asks.
 */
export function requiredScopes(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName?: string | null,
): Set<string> {
  const operation = operationOf(document, operationName);
  const scopes = new Set<string>();
  if (!operation) return scopes;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions)
    if (definition.kind === Kind.FRAGMENT_DEFINITION)
      fragments.set(definition.name.value, definition);
  const typeInfo = new TypeInfo(schema);
  const walked = new Set<string>();
  const pending: ASTNode[] = [operation];
  const visitor = visitWithTypeInfo(typeInfo, {
    Field() {
      const scope = typeInfo.getFieldDef()?.extensions?.scope;
      if (typeof scope === 'string') scopes.add(scope);
    },
    FragmentSpread(spread) {
      const name = spread.name.value;
      const fragment = fragments.get(name);
      if (fragment && !walked.has(name)) {
        walked.add(name);
        pending.push(fragment);
      }
    },
  });
  for (let node = pending.pop(); node; node = pending.pop()) visit(node, visitor);
  return scopes;
}
