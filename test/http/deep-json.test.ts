import { expect, it } from 'vitest';
import { describeDb, useTestApp } from '../helpers/app.js';
import { expectError, rest } from '../helpers/rest.js';

/** Valid JSON nested `levels` deep: `[[[…]]]`. 51,000 levels fit in the default body limit. */
const deep = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;

const tooDeep = 'The request body is nested too deeply: at most 64 levels of arrays and objects';

async function postGraphQL(fetch: (request: Request) => Promise<Response>, body: string) {
  const response = await fetch(
    new Request('http://petstore.test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
      body,
    }),
  );
  return { status: response.status, body: JSON.parse(await response.text()) };
}

describeDb('very deeply nested JSON bodies', () => {
  const app = useTestApp();

  it('REST: says the body is nested too deeply, valid JSON or not (400 MALFORMED_REQUEST)', async () => {
    for (const body of [
      `{"name":${deep(51_000)}}`,
      deep(51_000),
      `{"a":${'['.repeat(60_000)}`,
      `{"a":${'{"b":'.repeat(15_000)}1${'}'.repeat(15_000)}}`,
      `{"a":${deep(65)}}`,
    ]) {
      expectError(
        await rest(app(), 'POST', '/categories', { body, contentType: 'application/json' }),
        400,
        'MALFORMED_REQUEST',
        tooDeep,
      );
    }
  });

  it('REST: reads up to 64 levels, and brackets inside strings do not count', async () => {
    // Deep but allowed: the body parses, and then fails validation as any wrong value does.
    const allowed = await rest(app(), 'POST', '/categories', {
      body: `{"name":${deep(63)}}`,
      contentType: 'application/json',
    });
    expectError(allowed, 400, 'VALIDATION_FAILED', /name/);
    const description = `${'[{'.repeat(100)}"\\`;
    const created = await rest(app(), 'POST', '/categories', {
      json: { name: `Brackets ${Math.random()}`, description },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ description });
  });

  it('GraphQL: JSON.parse reads any depth; deep bodies get a 4xx or their normal result, never a 5xx', async () => {
    const fetch = (request: Request) => app().fetch(request);
    const nested = deep(51_000);
    // `__typename` costs nothing (docs/demand-control.md).
    const free = { cost: { requestedQueryCost: 0, actualQueryCost: 0 } };
    // Variables the operation does not use are ignored, however deep.
    expect(
      await postGraphQL(fetch, `{"query":"{ __typename }","variables":{"a":${nested}}}`),
    ).toEqual({ status: 200, body: { data: { __typename: 'Query' }, extensions: free } });
    expect(
      await postGraphQL(fetch, `{"query":"{ __typename }","extensions":{"a":${nested}}}`),
    ).toEqual({ status: 200, body: { data: { __typename: 'Query' }, extensions: free } });
    // Variables that are not an object: a request error.
    const notObject = await postGraphQL(fetch, `{"query":"{ __typename }","variables":${nested}}`);
    expect(notObject.status).toBe(400);
    expect(notObject.body.errors[0].message).toMatch(/variables/);
    // A variable that does not coerce: a request error that does not print the whole value.
    const coerced = await postGraphQL(
      fetch,
      `{"query":"query ($a: ID!) { pet(id: $a) { id } }","variables":{"a":${nested}}}`,
    );
    expect(coerced.status).toBe(400);
    expect(coerced.body.errors[0]).toMatchObject({
      message: expect.stringMatching(/cannot represent/),
      extensions: { code: 'VALIDATION_FAILED', status: 400 },
    });
    expect(JSON.stringify(coerced.body).length).toBeLessThan(1000);
    // A batch whose entry is a deep array, and a document nested 40,000 selections deep.
    for (const body of [nested, JSON.stringify({ query: `${'{a'.repeat(40_000)}` })]) {
      const answer = await postGraphQL(fetch, body);
      expect(answer.status).toBeLessThan(500);
      const errors = Array.isArray(answer.body) ? answer.body[0].errors : answer.body.errors;
      expect(errors[0]).toEqual(
        expect.objectContaining({ message: expect.any(String), extensions: expect.any(Object) }),
      );
    }
  });
});
