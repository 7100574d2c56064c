import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { ResponseValidator } from '../helpers/openapi.js';

/** The response validator must fail tests on what the document does not promise. */

const document: unknown = JSON.parse(
  readFileSync(new URL('../../schema/openapi.json', import.meta.url), 'utf8'),
);
const url = (path: string) => `http://petstore.test/api${path}`;
const json = (headers: Record<string, string> = {}) =>
  new Headers({ 'content-type': 'application/json; charset=utf-8', ...headers });
/** The validators every GET answer carries. */
const validators = { etag: '"abc"', 'cache-control': 'no-cache' };
const pet = { id: 1, name: 'Rex', categoryId: 2, status: 'available' };
const error = (code: string, status: number) => JSON.stringify({ code, message: 'm', status });

describe('the response validator', () => {
  let validator: ResponseValidator;
  beforeAll(async () => {
    validator = await ResponseValidator.create(document);
  });

  it('accepts responses as documented', () => {
    const ok = [
      {
        method: 'GET',
        url: url('/pets'),
        status: 200,
        headers: json({ 'x-total-count': '1', ...validators }),
        text: JSON.stringify([pet]),
      },
      {
        method: 'POST',
        url: url('/pets'),
        status: 201,
        headers: json({ location: '/api/pets/1', etag: '"1"' }),
        text: JSON.stringify(pet),
      },
      { method: 'DELETE', url: url('/pets/1'), status: 204, headers: new Headers(), text: '' },
      {
        method: 'POST',
        url: url('/store/orders'),
        status: 409,
        headers: json(),
        text: error('INSUFFICIENT_STOCK', 409),
      },
      {
        method: 'GET',
        url: url('/pets/1'),
        status: 304,
        headers: new Headers({ deprecation: '@1', sunset: 'x', link: 'y', ...validators }),
        text: '',
      },
      {
        method: 'GET',
        url: url('/nope'),
        status: 404,
        headers: json(),
        text: error('NOT_FOUND', 404),
      },
      {
        method: 'PATCH',
        url: url('/pets'),
        status: 405,
        headers: json({ allow: 'GET, HEAD, POST' }),
        text: error('METHOD_NOT_ALLOWED', 405),
      },
    ];
    for (const response of ok) expect(() => validator.check(response)).not.toThrow();
  });

  it.each([
    [
      'an undocumented status',
      {
        method: 'GET',
        url: url('/pets'),
        status: 418,
        headers: json(),
        text: error('INTERNAL', 418),
      },
      /status 418 is not documented/,
    ],
    [
      'an undocumented field',
      {
        method: 'POST',
        url: url('/pets'),
        status: 201,
        headers: json({ location: '/api/pets/1', etag: '"1"' }),
        text: JSON.stringify({ ...pet, tags: [] }),
      },
      /must NOT have additional properties/,
    ],
    [
      'a null field',
      {
        method: 'GET',
        url: url('/categories/1'),
        status: 200,
        headers: json(validators),
        text: JSON.stringify({ id: 1, name: 'Dogs', description: null }),
      },
      /must be string/,
    ],
    [
      'an id written as a string',
      {
        method: 'GET',
        url: url('/pets/1'),
        status: 200,
        headers: json({ deprecation: '@1', sunset: 'x', link: 'y', ...validators }),
        text: JSON.stringify({ ...pet, id: '1' }),
      },
      /must be integer/,
    ],
    [
      'a missing documented header',
      { method: 'GET', url: url('/pets'), status: 200, headers: json(validators), text: '[]' },
      /header X-Total-Count is missing/,
    ],
    [
      'a GET answer without its ETag',
      {
        method: 'GET',
        url: url('/pets'),
        status: 200,
        headers: json({ 'x-total-count': '0', 'cache-control': 'no-cache' }),
        text: '[]',
      },
      /header ETag is missing/,
    ],
    [
      'the deprecated route without its headers',
      {
        method: 'GET',
        url: url('/pets/1'),
        status: 200,
        headers: json(),
        text: JSON.stringify(pet),
      },
      /header Deprecation is missing/,
    ],
    [
      'an error code not listed for the status',
      {
        method: 'GET',
        url: url('/store/orders/1'),
        status: 404,
        headers: json(),
        text: error('PET_NOT_FOUND', 404),
      },
      /code PET_NOT_FOUND is not documented/,
    ],
    [
      'a body status unlike the HTTP status',
      {
        method: 'POST',
        url: url('/pets'),
        status: 422,
        headers: json(),
        text: error('UNKNOWN_CATEGORY', 400),
      },
      /body status 400 differs/,
    ],
    [
      'a body that is not the Error shape',
      {
        method: 'POST',
        url: url('/pets'),
        status: 400,
        headers: json(),
        text: JSON.stringify({ error: 'bad' }),
      },
      /does not match/,
    ],
    [
      'a body on a 204',
      { method: 'DELETE', url: url('/pets/1'), status: 204, headers: new Headers(), text: '{}' },
      /a body where the document has none/,
    ],
    [
      'a wrong Allow on a 405',
      {
        method: 'PUT',
        url: url('/pets'),
        status: 405,
        headers: json({ allow: 'GET' }),
        text: error('METHOD_NOT_ALLOWED', 405),
      },
      /Allow is "GET"/,
    ],
    [
      'a text body',
      {
        method: 'GET',
        url: url('/categories'),
        status: 200,
        headers: new Headers({ 'content-type': 'text/plain', ...validators }),
        text: '[]',
      },
      /content type "text\/plain" is not documented/,
    ],
  ])('rejects %s', (_name, response, problem) => {
    expect(() => validator.check(response)).toThrow(problem);
  });
});
