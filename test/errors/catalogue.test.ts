import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { describeDb, useTestApp } from '../helpers/app.js';
import type { Client } from '../helpers/client.js';
import { anonymous, graphqlRequest } from '../helpers/graphql.js';
import { API } from '../helpers/rest.js';

/** One error as a client sees it: the HTTP status, the headers that matter, code and message. */
interface Seen {
  status: number;
  headers: Record<string, string | null>;
  error: { code: string; status: number; message: string };
}

const headerNames = ['www-authenticate', 'retry-after'];

function seen(response: Response, error: Seen['error']): Seen {
  const headers = Object.fromEntries(headerNames.map((name) => [name, response.headers.get(name)]));
  return { status: response.status, headers, error };
}

async function viaRest(app: Client, method: string, path: string, json?: unknown): Promise<Seen> {
  const response = await app.fetch(
    new Request(`${API}${path}`, {
      method,
      headers: {
        ...(app.authorization ? { authorization: app.authorization } : {}),
        ...(json === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: json === undefined ? undefined : JSON.stringify(json),
    }),
  );
  return seen(response, await response.json());
}

async function viaGraphQL(app: Client, query: string): Promise<Seen> {
  const headers: Record<string, string> = app.authorization
    ? { authorization: app.authorization }
    : {};
  const response = await app.fetch(graphqlRequest({ query }, headers));
  const body = (await response.json()) as {
    errors: { message: string; extensions: { code: string; status: number } }[];
  };
  const [first] = body.errors;
  if (!first) throw new Error('no error in the GraphQL answer');
  const { code, status } = first.extensions;
  return seen(response, { code, status, message: first.message });
}

describeDb('one error, the same on both edges', () => {
  const app = useTestApp();

  it('PET_NOT_FOUND: the same code, status and message from PUT /api/pets/999 and updatePet', async () => {
    const category = await viaRestJson(app(), '/categories', { name: 'Catalogue' });
    const rest = await viaRest(app(), 'PUT', '/pets/999', {
      name: 'Nobody',
      categoryId: Number(category),
    });
    const graphql = await viaGraphQL(
      app(),
      `mutation { updatePet(id: "999", input: { name: "Nobody", categoryId: "${category}" }) { id } }`,
    );
    expect(rest).toEqual({
      status: 404,
      headers: { 'www-authenticate': null, 'retry-after': null },
      error: { code: 'PET_NOT_FOUND', status: 404, message: expect.stringContaining('999') },
    });
    // GraphQL answers a failed field with its data (null): the error is in the body, 200 the status.
    expect(graphql.error).toEqual(rest.error);
  });

  it('UNAUTHENTICATED: the same error and WWW-Authenticate challenge on both edges', async () => {
    const rest = await viaRest(anonymous(app()), 'POST', '/categories', { name: 'Nobody' });
    const graphql = await viaGraphQL(
      anonymous(app()),
      'mutation { createCategory(input: { name: "Nobody" }) { id } }',
    );
    expect(rest).toEqual({
      status: 401,
      headers: { 'www-authenticate': 'Bearer realm="petstore"', 'retry-after': null },
      error: { code: 'UNAUTHENTICATED', status: 401, message: expect.any(String) },
    });
    expect(graphql.error).toEqual(rest.error);
    expect(graphql.headers).toEqual(rest.headers);
  });

  it('UNAUTHENTICATED for a bad token: the same answer, with error="invalid_token", on both', async () => {
    const bad = { fetch: app().fetch, authorization: 'Bearer not-a-token' };
    const rest = await viaRest(bad, 'GET', '/pets');
    const graphql = await viaGraphQL(bad, '{ __typename }');
    expect(rest).toEqual({
      status: 401,
      headers: {
        'www-authenticate': 'Bearer realm="petstore", error="invalid_token"',
        'retry-after': null,
      },
      error: { code: 'UNAUTHENTICATED', status: 401, message: expect.any(String) },
    });
    expect(graphql).toEqual(rest);
  });
});

/** The id of a category made through REST. */
async function viaRestJson(app: Client, path: string, json: unknown): Promise<string> {
  const response = await app.fetch(
    new Request(`${API}${path}`, {
      method: 'POST',
      headers: {
        ...(app.authorization ? { authorization: app.authorization } : {}),
        'content-type': 'application/json',
      },
      body: JSON.stringify(json),
    }),
  );
  expect(response.status).toBe(201);
  return String(((await response.json()) as { id: number }).id);
}

describeDb('RATE_LIMITED, the same on both edges', () => {
  const app = useTestApp({ RATE_LIMIT_PER_MINUTE: '1' });

  it('answers 429 with Retry-After and the same error over REST and GraphQL', async () => {
    const client = anonymous(app());
    expect((await client.fetch(new Request(`${API}/pets`))).status).toBe(200);
    const rest = await viaRest(client, 'GET', '/pets');
    const graphql = await viaGraphQL(client, '{ __typename }');
    expect(rest).toEqual({
      status: 429,
      headers: { 'www-authenticate': null, 'retry-after': expect.stringMatching(/^\d+$/) },
      error: {
        code: 'RATE_LIMITED',
        status: 429,
        message: 'Too many requests; wait for Retry-After seconds and try again',
      },
    });
    expect(graphql).toEqual(rest);
  });
});

const src = fileURLToPath(new URL('../../src/', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory())
      return ['generated', 'errors'].includes(entry.name) ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

const withoutComments = (text: string) =>
  text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');

/** Whether the innermost braces hold `key` as a key (`key:`, or shorthand `key,` / `key }`). */
const hasKey = (braces: string, key: string) => new RegExp(`[{,]\\s*${key}\\s*[:,}]`).test(braces);

/**
 * The error bodies a file puts together by hand: an object literal with `code`, `message` and
 * `status` (the Error shape), `extensions: { code … }` (a GraphQL error), or `errors: [{` (a
 * GraphQL error answer). Destructuring (`{ code, message } =` or a typed parameter) is reading.
 */
function handBuiltErrors(text: string): string[] {
  const found: string[] = [];
  const code = withoutComments(text);
  for (const match of code.matchAll(/\{[^{}]*\}(?!\s*[=:])/g)) {
    const braces = match[0];
    if (['code', 'message', 'status'].every((key) => hasKey(braces, key))) found.push(braces);
  }
  for (const match of code.matchAll(/extensions:\s*\{[^{}]*\bcode\b[^{}]*\}|errors:\s*\[\s*\{/g))
    found.push(match[0]);
  return found;
}

describe('the error catalogue', () => {
  it('is the only place that builds an error body: no file outside src/errors/ does', () => {
    const builders = sourceFiles(src).flatMap((file) =>
      handBuiltErrors(readFileSync(file, 'utf8')).map(
        (built) => `${relative(src, file)}: ${built.replace(/\s+/g, ' ')}`,
      ),
    );
    expect(builders).toEqual([]);
  });

  it('would see the ways an error body used to be built by hand', () => {
    expect(
      handBuiltErrors(
        [
          'JSON.stringify({ errors: [{ message, extensions: { code, status } }] })',
          "createGraphQLError(message, { extensions: { code: 'RATE_LIMITED', status: 429 } })",
          'return { code, message, status: errorStatus[code] };',
          "sendJson(c, 400, { code: 'X', message: 'm', status: 400 })",
        ].join('\n'),
      ),
    ).toHaveLength(5);
    expect(
      handBuiltErrors('const { code, message, status } = error;\nrecordFailure({ code, status });'),
    ).toEqual([]);
  });
});
