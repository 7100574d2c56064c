import {
  type DocumentNode,
  type GraphQLSchema,
  getOperationAST,
  type OperationDefinitionNode,
} from 'graphql';

const operations = new WeakMap<DocumentNode, Map<string, OperationDefinitionNode>>();

/**
 * The operation a document runs for an operation name, found once per document and name: the
 * parse cache hands the same document object for the same text, so every plugin that asks
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
  const found = byName.get(key);
  if (found) return found;
  // A name the document has no operation for is the client's to vary: it keeps nothing.
  const operation = getOperationAST(document, operationName) ?? undefined;
  if (operation) byName.set(key, operation);
  return operation;
}

/**
 * `derive` of an operation, made once per schema, document and operation name and kept with the
 * document: it goes when the parse cache lets the document go (GRAPHQL_DOCUMENT_CACHE_BYTES).
 * A name the document has no operation for answers undefined and keeps nothing.
 */
export function perOperation<T>(
  derive: (schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode) => T,
): (schema: GraphQLSchema, document: DocumentNode, operationName?: string | null) => T | undefined {
  const bySchema = new WeakMap<GraphQLSchema, WeakMap<DocumentNode, Map<string, T>>>();
  return (schema, document, operationName) => {
    let documents = bySchema.get(schema);
    if (!documents) {
      documents = new WeakMap();
      bySchema.set(schema, documents);
    }
    let byName = documents.get(document);
    if (!byName) {
      byName = new Map();
      documents.set(document, byName);
    }
    const key = operationName ?? '';
    if (byName.has(key)) return byName.get(key);
    const operation = operationOf(document, operationName);
    if (!operation) return undefined;
    const derived = derive(schema, document, operation);
    byName.set(key, derived);
    return derived;
  };
}
