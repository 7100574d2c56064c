import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The app uses its dependencies through their public API: no `new Proxy` around one of their
 * objects, and no method of theirs replaced (an assignment to a member of an imported binding, to
 * a prototype, or to a function of `globalThis` or `process`). A text scan of src/, comments
 * left out.
 */
const src = fileURLToPath(new URL('../../src/', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The text without its comments (strings, the code and the line numbers stay). */
const withoutComments = (text: string) =>
  text
    .replace(/\/\*[\s\S]*?\*\//g, (comment) => comment.replace(/[^\n]/g, ''))
    .replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');

const name = '[A-Za-z_$][\\w$]*';
/** A member access chain, `.a.b` or `['a']`, ending in an assignment (not `==`, `===` or `=>`). */
const assignedMember = `((?:\\??\\.${name}|\\[[^\\]]+\\])+)\\s*=(?![=>])`;

/** The local names a file binds to what it imports from packages and Node's modules. */
function importedNames(text: string): string[] {
  const names: string[] = [];
  const statement = /import\s+(?!type\s)([^'";]*?)\s+from\s+'([^'.][^']*)'/g;
  for (const [, clause = ''] of text.matchAll(statement)) {
    const namespace = /\*\s+as\s+([\w$]+)/.exec(clause)?.[1];
    if (namespace) names.push(namespace);
    const defaultName = /^([\w$]+)/.exec(clause)?.[1];
    if (defaultName) names.push(defaultName);
    const named = /\{([^}]*)\}/.exec(clause)?.[1] ?? '';
    for (const part of named.split(',')) {
      const binding = part
        .trim()
        .replace(/^type\s+/, '')
        .split(/\s+as\s+/)
        .pop();
      if (binding && !part.trim().startsWith('type ')) names.push(binding);
    }
  }
  return names;
}

/** What in `text` patches a dependency, each as `line: code`. */
function patches(text: string): string[] {
  const code = withoutComments(text);
  const lines = new Set<number>();
  const note = (index: number) => lines.add(code.slice(0, index).split('\n').length);
  for (const match of code.matchAll(/\bnew\s+Proxy\b/g)) note(match.index);
  for (const match of code.matchAll(new RegExp(`\\.prototype${assignedMember}`, 'g')))
    note(match.index);
  for (const match of code.matchAll(/\bObject\.(?:defineProperty|setPrototypeOf)\s*\(/g))
    note(match.index);
  const globals = { globalThis, global: globalThis, process } as Record<string, object>;
  for (const match of code.matchAll(
    new RegExp(`(?<![\\w$.])(globalThis|global|process)\\.(${name})\\s*=(?![=>])`, 'g'),
  )) {
    const owner = globals[match[1] as string] as Record<string, unknown>;
    if (typeof owner[match[2] as string] === 'function') note(match.index);
  }
  for (const imported of importedNames(code)) {
    const escaped = imported.replace(/\$/g, '\\$');
    for (const match of code.matchAll(new RegExp(`(?<![\\w$.])${escaped}${assignedMember}`, 'g')))
      note(match.index);
  }
  const codeLines = code.split('\n');
  return [...lines].sort((a, b) => a - b).map((line) => `${line}: ${codeLines[line - 1]?.trim()}`);
}

describe('dependencies are used through their public API', () => {
  it('finds a proxy and each way of replacing a method in a sample', () => {
    const sample = [
      "import yoga, { handle as run } from 'graphql-yoga';",
      "import * as http from 'node:http';",
      'const wrapped = new Proxy(client, {});',
      'yoga.fetch = () => undefined;',
      'run.call = undefined;',
      "http.ServerResponse.prototype['end'] = end;",
      'process.nextTick = (fn) => fn();',
      'globalThis.Response = Mine;',
      'Object.defineProperty(client, "query", {});',
      'process.exitCode = 1; // a property, not a method',
      'const same = yoga.fetch === run; // a comparison',
      'options.fetch = yoga.fetch; // the app’s own object',
    ].join('\n');
    expect(patches(sample).map((entry) => entry.split(':')[0])).toEqual([
      '3',
      '4',
      '5',
      '6',
      '7',
      '8',
      '9',
    ]);
  });

  it('holds for every file of src/', () => {
    const found = sourceFiles(src).flatMap((file) =>
      patches(readFileSync(file, 'utf8')).map((entry) => `${relative(src, file)}:${entry}`),
    );
    expect(found).toEqual([]);
  });
});
