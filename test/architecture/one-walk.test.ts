import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * One analysis per operation (docs/architecture.md): the plan (src/graphql/plan/) is the one place
 * in src/ that walks a GraphQL document's selections, there, the result walk for an operation's
 * actual cost besides; every policy reads the plan. A walk is what graphql-js offers for one
 * (`visit`, `visitInParallel`, `TypeInfo`) or a loop over a document's definitions or a selection
 * set's selections.
 */
const src = fileURLToPath(new URL('../../src/', import.meta.url));
const plan = 'graphql/plan/';

const walking = /\bvisit(?:InParallel|WithTypeInfo)?\(|\bTypeInfo\b|\.selections\b|\.definitions\b/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The lines of src/ that walk a document, as `file:line: text`. */
function walks(inPlan: boolean): string[] {
  return sourceFiles(src).flatMap((file) => {
    const name = relative(src, file);
    if (name.startsWith(plan) !== inPlan) return [];
    return readFileSync(file, 'utf8')
      .split('\n')
      .flatMap((line, at) => (walking.test(line) ? [`${name}:${at + 1}: ${line.trim()}`] : []));
  });
}

describe('one walk of a document', () => {
  it('walks documents in the plan alone', () => {
    expect(walks(false)).toEqual([]);
  });

  it('finds the plan’s own walk (the check reads what it is meant to)', () => {
    expect(walks(true).some((line) => line.startsWith(`${plan}walk.ts`))).toBe(true);
  });
});
