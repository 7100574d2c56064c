import { expect, it } from 'vitest';
import { describeDb, useTestApp } from '../helpers/app.js';

function post(body: unknown, accept = 'application/graphql-response+json') {
  return new Request('http://petstore.test/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept },
    body: JSON.stringify(body),
  });
}

describeDb('GraphQL request errors', () => {
  const app = useTestApp();

  it('answers a syntax error with 400 GRAPHQL_PARSE_FAILED', async () => {
    const response = await app().fetch(post({ query: '{ pets { ' }));
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toMatch(/application\/graphql-response\+json/);
    const body = await response.json();
    expect(body.errors[0].extensions).toEqual({ code: 'GRAPHQL_PARSE_FAILED', status: 400 });
  });

  it('answers an unknown field with 400 GRAPHQL_VALIDATION_FAILED', async () => {
    const response = await app().fetch(post({ query: '{ pets { edges { node { nickname } } } }' }));
    expect(response.status).toBe(400);
    const body = await response.json();
    expect(body.errors[0].extensions).toEqual({ code: 'GRAPHQL_VALIDATION_FAILED', status: 400 });
    expect(body.errors[0].message).toMatch(/nickname/);
  });

  it('rejects first over 100 with VALIDATION_FAILED and a bad cursor likewise', async () => {
    for (const query of [
      '{ pets(first: 101) { totalCount } }',
      '{ pets(after: "not-a-cursor") { totalCount } }',
    ]) {
      const body = await (await app().fetch(post({ query }))).json();
      expect(body.errors[0].extensions).toEqual({ code: 'VALIDATION_FAILED', status: 400 });
      expect(body.errors[0].message).toMatch(/first|after/);
    }
  });

  it('masks an unexpected failure as INTERNAL without SQL or stack', async () => {
    const response = await app().fetch(post({ query: '{ categories { id } }' }));
    expect(response.status).toBe(200);
    await app().sql('DROP TABLE "InventoryItem"');
    const broken = await app().fetch(post({ query: '{ inventories { totalCount } }' }));
    const body = await broken.json();
    expect(body.errors[0].extensions).toEqual({ code: 'INTERNAL', status: 500 });
    expect(body.errors[0].message).toBe('Unexpected error; it has been logged.');
    expect(JSON.stringify(body)).not.toMatch(/InventoryItem|SELECT|at \//);
  });

  it('serves GraphiQL to a browser', async () => {
    const response = await app().fetch(
      new Request('http://petstore.test/graphql', { headers: { accept: 'text/html' } }),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/text\/html/);
    expect(await response.text()).toMatch(/GraphiQL|Pet Store gateway/);
  });
});
