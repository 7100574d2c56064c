import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJson, stringifyJson } from '../../src/rest/kit/json.js';

describe('REST JSON', () => {
  it('reads integers beyond 2^53 as exact bigints and the rest as numbers', () => {
    expect(
      parseJson('{"a":9007199254740993,"b":-9223372036854775808,"c":12,"d":1.5,"e":1e2,"f":1e400}'),
    ).toEqual({
      a: 9007199254740993n,
      b: -9223372036854775808n,
      c: 12,
      d: 1.5,
      e: 100,
      f: Number.POSITIVE_INFINITY,
    });
  });

  it('writes bigints as plain JSON numbers, every digit exact', () => {
    expect(stringifyJson({ id: 9223372036854775807n, ids: [1n, 2], name: 'x' })).toBe(
      '{"id":9223372036854775807,"ids":[1,2],"name":"x"}',
    );
  });

  it('round-trips any int64 unchanged', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), (id) => {
        const text = stringifyJson({ id });
        expect(text).toBe(`{"id":${id}}`);
        const back = (parseJson(text) as { id: number | bigint }).id;
        expect(BigInt(back)).toBe(id);
      }),
    );
  });

  it('reads what JSON.parse reads, except for the exactness of big integers', () => {
    const rounded = (value: unknown): unknown =>
      typeof value === 'bigint'
        ? Number(value)
        : Array.isArray(value)
          ? value.map(rounded)
          : typeof value === 'object' && value !== null
            ? Object.fromEntries(Object.entries(value).map(([key, item]) => [key, rounded(item)]))
            : value;
    fc.assert(
      fc.property(fc.json(), (text) => {
        expect(rounded(parseJson(text))).toEqual(JSON.parse(text));
      }),
    );
  });

  it('keeps "__proto__" an ordinary property and rejects conflicting duplicate keys', () => {
    const value = parseJson('{"__proto__":{"polluted":true}}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(() => parseJson('{"a":1,"a":2}')).toThrow(SyntaxError);
  });
});
