import { apiDiff, type Diff } from 'api-smart-diff';
import type { Level, SchemaChange } from './changes.js';

/** api-smart-diff's classes: a deprecation only announces; anything it cannot classify is risky. */
const levels: Record<Diff['type'], Level> = {
  breaking: 'breaking',
  unclassified: 'dangerous',
  deprecated: 'safe',
  'non-breaking': 'safe',
  annotation: 'safe',
};

/**
 * api-smart-diff calls a value added to an enum of a response breaking; the gate calls it dangerous,
 * as graphql-inspector does a GraphQL enum's (ENUM_VALUE_ADDED): one rule for both APIs. A client
 * that switches over the values must handle one it does not know, and a new error code is how the
 * Error shape grows.
 */
const isAddedEnumValue = (change: Diff) =>
  change.action === 'add' && change.path[change.path.length - 2] === 'enum';

const methods = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

interface Operation {
  operationId?: string;
  deprecated?: boolean;
}

type Document = { paths?: Record<string, Record<string, unknown>> };

/** The operations a change is about: `[method, operation]` of one path, all of it, or none. */
function operationsAt(document: Document, path: readonly unknown[]): [string, Operation][] {
  if (path[0] !== 'paths' || typeof path[1] !== 'string') return [];
  const item = document.paths?.[path[1]];
  if (!item) return [];
  const method = path[2];
  const all = Object.entries(item).filter(([key]) => methods.has(key)) as [string, Operation][];
  if (typeof method === 'string' && methods.has(method))
    return all.filter(([key]) => key === method);
  return all;
}

/** `GET /pets/{petId}` and what in it changed, from a change's JSON path. */
function locationOf(path: readonly unknown[]): string {
  if (path[0] !== 'paths') return path.join('.');
  const [, route, method, ...rest] = path;
  const where = typeof method === 'string' && methods.has(method) ? `${method.toUpperCase()} ` : '';
  const inner = where ? rest : [method, ...rest].filter((part) => part !== undefined);
  return `${where}${String(route)}${inner.length > 0 ? ` ${inner.join('.')}` : ''}`;
}

/**
 * Every change from the base OpenAPI document to the new one, as api-smart-diff classifies it
 * (offline, in process). A change under an operation is tied to its operation id, the key of REST
 * usage; one that removes a whole path, to every operation the path had.
 */
export function openApiChanges(base: Document, next: Document): SchemaChange[] {
  return apiDiff(base, next).map((change) => {
    // An operation that went away is found in the base; one that came, in the new document.
    const operations = operationsAt(base, change.path);
    const touched = operations.length > 0 ? operations : operationsAt(next, change.path);
    return {
      api: 'rest',
      level: isAddedEnumValue(change) ? 'dangerous' : (levels[change.type] ?? 'dangerous'),
      kind: change.action,
      location: locationOf(change.path),
      message: change.description ?? `${change.action} at ${change.path.join('.')}`,
      usageKeys: touched.flatMap(([, operation]) =>
        operation.operationId ? [operation.operationId] : [],
      ),
      deprecatedInBase:
        operations.length > 0 && operations.every(([, operation]) => operation.deprecated === true),
    };
  });
}
