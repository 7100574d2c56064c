import fc from 'fast-check';
import { expect, it } from 'vitest';
import { jsonText } from '../../src/idempotency/json-text.js';

it('writes any JSON value exactly as JSON.stringify does (the fingerprints of recorded keys hold)', () => {
  fc.assert(
    fc.property(fc.jsonValue(), (value) => {
      expect(jsonText(value)).toBe(JSON.stringify(value));
    }),
  );
});

it('writes a value nested far deeper than JSON.stringify can', () => {
  const deep = JSON.parse(`${'[{"a":'.repeat(40_000)}1${'}]'.repeat(40_000)}`);
  expect(() => JSON.stringify(deep)).toThrow(RangeError);
  expect(jsonText(deep)).toBe(`${'[{"a":'.repeat(40_000)}1${'}]'.repeat(40_000)}`);
});
