import { expect, it } from 'vitest';
import { createTestApp, describeDb } from '../helpers/app.js';
import { expectError, rest } from '../helpers/rest.js';

describeDb('a database that cannot be reached', () => {
  it('answers 503 UNAVAILABLE on both edges, never INTERNAL', async () => {
    const app = await createTestApp();
    try {
      // Fetch the document first: the response validator needs it and the REST call checks against it.
      expect((await rest(app, 'GET', '/openapi.json')).status).toBe(200);
      await app.database.close();

      expectError(await rest(app, 'GET', '/pets'), 503, 'UNAVAILABLE', /cannot be reached/);

      const response = await app.fetch(
        new Request('http://petstore.test/graphql', {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: app.authorization },
          body: JSON.stringify({ query: '{ categories { id } }' }),
        }),
      );
      const body = await response.json();
      expect(body.errors[0]).toMatchObject({
        message: 'The database cannot be reached; try again later.',
        extensions: { code: 'UNAVAILABLE', status: 503 },
      });
    } finally {
      await app.close();
    }
  });
});
