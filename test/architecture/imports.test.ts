import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sourceFiles, src } from './source-files.js';

/**
 * The import rule of docs/architecture.md, enforced: each part of src/ imports only from itself and
 * from parts in lower layers (type-only imports count the same; the resources, one layer, import
 * each other as `resourceImports` allows), and no files import each other in a cycle, however
 * long and whether or not the imports are type-only. A part is a top folder of src/ (or a
 * top-level file), or a sub-folder listed here by its path (`graphql/kit`): that one is a part of
 * its own, in its own layer, apart from the rest of its top folder.
 */
const layers: readonly (readonly string[])[] = [
  // With the configuration, the other part that imports nothing of src/: what the process sets
  // about its runtime before anything loads, each piece measured (src/runtime/README.md).
  ['config', 'runtime'],
  // Tracing's hooks sit just above the configuration: the logger, the database, the domain and
  // both edges call them. They load nothing until the SDK (tracing/sdk.ts, imported dynamically by
  // server.ts alone) turns them on, so a layer this low costs nothing when tracing is off.
  ['tracing'],
  ['logger', 'cli'],
  ['generated'],
  ['db'],
  // The catalogue of contract errors, its classifier and renderers: below every part that throws or
  // answers one.
  ['errors'],
  ['domain'],
  // The plan of a GraphQL operation: the one walk of each document's operation, and what every
  // policy reads of it. It needs only the domain's paging, so every policy may read it.
  ['graphql/plan'],
  ['http'],
  // The token check is HTTP middleware; the pages of `http` show a development token without it.
  ['auth'],
  ['observability'],
  // Incremental delivery (@defer, @stream): its formats, the complete result of a streamed answer,
  // read by the cost report and the response cache above it.
  ['redis', 'incremental'],
  // The policies that need no kit: the change feed, the response cache, the rate limits, the
  // cost rule and report, the limits, persisted operations.
  ['changes', 'cache', 'rate-limit', 'cost', 'limits', 'persisted'],
  // Edge caching: the headers a CDN reads of the cache's answers, and the purges driven by the
  // outbox with the cache's tags.
  ['edge-cache'],
  // What a resource declares its GraphQL types and REST routes with: below the resources, while the
  // rest of their top folders (the schema and the router that gather every resource, the servers)
  // sits above them.
  ['graphql/kit', 'rest/kit'],
  // The policies that read what the kits declare (a route's spec, the GraphQL context).
  ['idempotency', 'usage', 'warnings'],
  // The resources, one layer: what one may import of another is `resourceImports`' to say.
  ['orders', 'pets', 'categories', 'inventory'],
  // The live transports: the GraphQL edge plugs in SSE and the shared events, and the WebSocket
  // server runs the edge's pipeline (typed by what it needs of it, not by importing the edge).
  ['live'],
  // The gate (npm run schema:check) reads usage reports; the edges never import it.
  ['graphql', 'rest', 'schema-check'],
  ['app'],
  // The entry points that nothing in src/ imports: the server, its watcher, the build.
  ['server', 'dev', 'build'],
];

/** The sub-folders that are parts of their own. */
const subParts = layers.flat().filter((part) => part.includes('/'));

/** The part of src/ a file belongs to: a listed sub-folder, its top folder, or a top-level file's name. */
function partOf(file: string): string {
  const path = relative(src, file);
  return (
    subParts.find((part) => path.startsWith(`${part}/`)) ??
    path.split('/')[0]?.replace(/\.ts$/, '') ??
    ''
  );
}

const specifier = /(?:import|export)\s[^'"]*?from\s+'([^']+)'|import\(\s*'([^']+)'\s*\)/g;

/** The files of src/ that `file` imports (statically, dynamically, for types or values). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found: string[] = [];
  for (const match of text.matchAll(specifier)) {
    const target = match[1] ?? match[2];
    if (!target?.startsWith('.')) continue;
    found.push(resolve(dirname(file), target).replace(/\.js$/, '.ts'));
  }
  return found;
}

/**
 * The resources in the order their types are registered in, and so the order of the published
 * SDL: a resource's GraphQL fields that name another's type import it, upwards only (a pet's
 * orders, a category's pets, a pet's stock; categories and stock never meet).
 */
const resourceOrder: readonly (readonly string[])[] = [
  ['orders'],
  ['pets'],
  ['categories', 'inventory'],
];
const resourceRank = new Map(
  resourceOrder.flatMap((resources, index) => resources.map((resource) => [resource, index])),
);

/**
 * Whether a file of one resource may import a file of another: its rules the other's store (a
 * rule that touches another resource's tables calls that resource's store, the only code that
 * touches them), and otherwise only upwards in `resourceOrder`, never from or to a store (a store
 * touches its own tables alone; a relation's types never need another's store). Since no store
 * imports another resource, the rules calling each other's stores make no cycle.
 */
function resourceImports(file: string, target: string): boolean {
  const [from, fromFile] = relative(src, file).split('/');
  const [to, toFile] = relative(src, target).split('/');
  if (toFile === 'store.ts') return fromFile === 'rules.ts';
  if (fromFile === 'store.ts') return false;
  return (resourceRank.get(to ?? '') ?? Infinity) < (resourceRank.get(from ?? '') ?? -1);
}

const files = sourceFiles(src);
const graph = new Map(files.map((file) => [file, importsOf(file)]));
const layerOf = new Map(layers.flatMap((parts, index) => parts.map((part) => [part, index])));

describe('the import rule', () => {
  it('places every part of src/ in a layer', () => {
    const unplaced = [...new Set(files.map(partOf))].filter((part) => !layerOf.has(part));
    expect(unplaced).toEqual([]);
  });

  it('imports only from the same part or a lower layer', () => {
    const violations: string[] = [];
    for (const [file, targets] of graph) {
      const from = partOf(file);
      for (const target of targets) {
        const to = partOf(target);
        if (to === from) continue;
        const allowed =
          resourceRank.has(from) && resourceRank.has(to)
            ? resourceImports(file, target)
            : (layerOf.get(to) ?? Infinity) < (layerOf.get(from) ?? -1);
        if (!allowed) violations.push(`${relative(src, file)} imports ${relative(src, target)}`);
      }
    }
    expect(violations).toEqual([]);
  });

  it('has no import cycle between files, type-only imports included', () => {
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const visit = (file: string, path: string[]) => {
      state.set(file, 'open');
      for (const target of graph.get(file) ?? []) {
        if (state.get(target) === 'open') {
          const cycle = [...path.slice(path.indexOf(target)), target];
          cycles.push(cycle.map((step) => relative(src, step)).join(' → '));
        } else if (!state.has(target) && graph.has(target)) visit(target, [...path, target]);
      }
      state.set(file, 'done');
    };
    for (const file of files) if (!state.has(file)) visit(file, [file]);
    expect(cycles).toEqual([]);
  });
});
