import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The import rule of docs/architecture.md, enforced: each part of src/ imports only from itself and
 * from parts in lower layers (type-only imports count the same), and no files import each other in
 * a cycle, however long and whether or not the imports are type-only.
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
  ['auth'],
  ['http'],
  ['observability'],
  ['redis'],
  ['changes', 'cache', 'rate-limit', 'idempotency', 'usage'],
  // The gate (npm run schema:check) reads usage reports; the edges never import it.
  ['graphql', 'rest', 'schema-check'],
  ['app'],
  // The entry points that nothing in src/ imports: the server, its watcher, the build.
  ['server', 'dev', 'build'],
];

const src = fileURLToPath(new URL('../../src/', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The part of src/ a file belongs to: its top folder, or a top-level file's name. */
const partOf = (file: string) => relative(src, file).split('/')[0]?.replace(/\.ts$/, '') ?? '';

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
        if ((layerOf.get(to) ?? Infinity) >= (layerOf.get(from) ?? -1))
          violations.push(`${relative(src, file)} imports ${relative(src, target)}`);
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
