import { type DocumentNode, getOperationAST, type OperationDefinitionNode } from 'graphql';

const operations = new WeakMap<DocumentNode, Map<string, OperationDefinitionNode | undefined>>();

/**
 * The operation a document runs for an operation name, found once per document and name: Yoga
 * hands the same document object for the same text (its parse cache), so every plugin that asks
 * (the cache, compiled queries, mutations' loaders, names on the access line) shares one answer.
 */
export function operationOf(
  document: DocumentNode,
  operationName?: string | null,
): OperationDefinitionNode | undefined {
  let byName = operations.get(document);
  if (!byName) {
    byName = new Map();
    operations.set(document, byName);
  }
  const key = operationName ?? '';
  if (!byName.has(key)) byName.set(key, getOperationAST(document, operationName) ?? undefined);
  return byName.get(key);
}
