import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { printPublishedSchema } from '../../src/graphql/schema/print.js';

it('schema/schema.graphql matches the code (run `npm run schema:print` after a change)', () => {
  const committed = readFileSync(new URL('../../schema/schema.graphql', import.meta.url), 'utf8');
  expect(printPublishedSchema()).toBe(committed);
});

it('marks updateInventory @beta in the SDL', () => {
  expect(printPublishedSchema()).toMatch(
    /updateInventory\(\s*petId: ID!\s+input: InventoryUpdate![\s\S]*?\): InventoryItem! @beta/,
  );
});
