import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sourceFiles, src } from './source-files.js';

/**
 * One analysis per operation (docs/architecture.md): the plan's walk (src/graphql/plan/walk.ts)
 * is the one place in src/ that walks a GraphQL document's selections, and the walk of a result
 * for an operation's actual cost (src/graphql/plan/cost.ts) the one other; every policy reads the
 * plan. A walk is what graphql-js offers for one (`visit`, `visitInParallel`, `TypeInfo`) or a
 * loop over a document's definitions or a selection set's selections.
 */
const walkers = ['graphql/plan/walk.ts', 'graphql/plan/cost.ts'];

const walking = /\bvisit(?:InParallel|WithTypeInfo)?\(|\bTypeInfo\(|\.selections\b|\.definitions\b/;

/** The lines of src/ that walk a document, as `file:line: text`. */
const walks = sourceFiles(src).flatMap((file) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .flatMap((line, at) =>
      walking.test(line) ? [`${relative(src, file)}:${at + 1}: ${line.trim()}`] : [],
    ),
);

describe('one walk of a document', () => {
  it('walks documents in the plan’s walk and the actual cost’s result walk alone', () => {
    const elsewhere = walks.filter((line) => !walkers.some((file) => line.startsWith(`${file}:`)));
    expect(elsewhere).toEqual([]);
  });

  it('finds both walks (the check reads what it is meant to)', () => {
    for (const file of walkers)
      expect(walks.some((line) => line.startsWith(`${file}:`))).toBe(true);
  });

  it('finds a walk where the policies had theirs', () => {
    expect(walking.test('typeInfo = new TypeInfo(schema); visit(document, visitor)')).toBe(true);
    expect(walking.test('for (const selection of operation.selectionSet.selections)')).toBe(true);
  });
});
