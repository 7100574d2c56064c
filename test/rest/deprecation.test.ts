import { describe, expect, it } from 'vitest';
import { describeDb, useTestApp } from '../helpers/app.js';
import { makePet } from '../helpers/factories.js';
import { scrape } from '../helpers/metrics.js';
import { expectError, rest } from '../helpers/rest.js';

const successor = '</graphql>; rel="successor-version"';

function deprecationHeaders(headers: Headers) {
  return {
    deprecation: headers.get('deprecation'),
    sunset: headers.get('sunset'),
    link: headers.get('link'),
  };
}

describeDb('the deprecated GET /api/pets/{petId}', () => {
  describe('with the default sunset', () => {
    const app = useTestApp();

    it('sends Deprecation, Sunset and Link on every response', async () => {
      const pet = await makePet(app());
      const expected = {
        deprecation: '@1795219200',
        sunset: 'Wed, 30 Jun 2027 00:00:00 GMT',
        link: successor,
      };
      // The status depends on today's date (410 from mid-2027 on); the headers never do.
      for (const path of [`/pets/${pet.id}`, '/pets/987654', '/pets/abc']) {
        expect(deprecationHeaders((await rest(app(), 'GET', path)).headers)).toEqual(expected);
      }
    });

    it('sends none of them on the other pet routes', async () => {
      const pet = await makePet(app());
      for (const [method, path] of [
        ['GET', '/pets'],
        ['DELETE', `/pets/${pet.id}`],
      ] as const) {
        const response = await rest(app(), method, path);
        expect(deprecationHeaders(response.headers)).toEqual({
          deprecation: null,
          sunset: null,
          link: null,
        });
      }
    });
  });

  describe('before a configured sunset', () => {
    const app = useTestApp({ PET_BY_ID_SUNSET: '2999-01-01T00:00:00Z' });

    it('answers as before, with the configured Sunset', async () => {
      const pet = await makePet(app(), { name: 'Old' });
      const response = await rest(app(), 'GET', `/pets/${pet.id}`);
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ name: 'Old' });
      expect(deprecationHeaders(response.headers)).toEqual({
        deprecation: '@1795219200',
        sunset: 'Tue, 01 Jan 2999 00:00:00 GMT',
        link: successor,
      });
      expectError(await rest(app(), 'GET', '/pets/987654'), 404, 'PET_NOT_FOUND');
    });

    it('serves a document whose x-sunset and Sunset follow the configuration', async () => {
      const response = await rest<{
        paths: Record<string, Record<string, Record<string, unknown>>>;
      }>(app(), 'GET', '/openapi.json');
      const operation = response.body.paths['/pets/{petId}']?.get;
      expect(operation).toMatchObject({ deprecated: true, 'x-sunset': '2999-01-01T00:00:00Z' });
      expect(JSON.stringify(operation)).toContain('Tue, 01 Jan 2999 00:00:00 GMT');
    });
  });

  describe('after a configured sunset', () => {
    const app = useTestApp({ PET_BY_ID_SUNSET: '2026-01-01T12:30:00+02:00' });

    it('answers 410 ENDPOINT_SUNSET, still with the headers, even for a bad id', async () => {
      const pet = await makePet(app());
      for (const path of [`/pets/${pet.id}`, '/pets/abc']) {
        const response = await rest(app(), 'GET', path);
        expectError(
          response,
          410,
          'ENDPOINT_SUNSET',
          `GET /api${path} reached its sunset on 2026-01-01T10:30:00Z; use the GraphQL query pet(id:) at /graphql instead`,
        );
        expect(deprecationHeaders(response.headers)).toEqual({
          deprecation: '@1795219200',
          sunset: 'Thu, 01 Jan 2026 10:30:00 GMT',
          link: successor,
        });
      }
    });

    it('leaves the other routes of the path working', async () => {
      const pet = await makePet(app());
      expect(
        (
          await rest(app(), 'PUT', `/pets/${pet.id}`, {
            json: { name: 'New', categoryId: Number(pet.categoryId) },
          })
        ).status,
      ).toBe(200);
      expect((await rest(app(), 'DELETE', `/pets/${pet.id}`)).status).toBe(204);
    });
  });

  describe('on every answer, whoever gives it', () => {
    const app = useTestApp({ RATE_LIMIT_PER_MINUTE: '5', RESPONSE_CACHE_TTL_MS: '0' });
    const sunsetApp = useTestApp({ PET_BY_ID_SUNSET: '2026-01-01T00:00:00Z' });

    /** Deprecated calls counted so far, all clients together. */
    const deprecatedCalls = async (target: typeof app) =>
      (await scrape(target()))
        .filter((sample) => sample.name === 'petstore_deprecated_calls_total')
        .reduce((sum, sample) => sum + sample.value, 0);

    it('carries the three headers on 200, 304, 400, 401, 404, 410 and 429, each counted', async () => {
      const pet = await makePet(app());
      const answers: [number, () => Promise<Response>][] = [];
      const get = (target: typeof app, path: string, headers: Record<string, string> = {}) =>
        target().fetch(new Request(`http://petstore.test/api${path}`, { headers }));
      let etag = '';
      answers.push([
        200,
        async () => {
          const response = await get(app, `/pets/${pet.id}`, { 'user-agent': 'one' });
          etag = response.headers.get('etag') ?? '';
          return response;
        },
      ]);
      answers.push([
        304,
        () => get(app, `/pets/${pet.id}`, { 'if-none-match': etag, 'user-agent': 'one' }),
      ]);
      answers.push([400, () => get(app, '/pets/abc', { 'user-agent': 'one' })]);
      answers.push([404, () => get(app, '/pets/987654', { 'user-agent': 'one' })]);
      // An invalid token counts against its address's budget before it is refused.
      answers.push([
        401,
        () =>
          get(app, `/pets/${pet.id}`, {
            authorization: 'Bearer not.a.token',
            'user-agent': 'three',
          }),
      ]);
      // The budget of 5 is spent.
      answers.push([429, () => get(app, `/pets/${pet.id}`, { 'user-agent': 'one' })]);
      answers.push([410, () => get(sunsetApp, `/pets/${pet.id}`)]);

      for (const [status, send] of answers) {
        const target = status === 410 ? sunsetApp : app;
        const before = await deprecatedCalls(target);
        const response = await send();
        expect(response.status).toBe(status);
        expect(deprecationHeaders(response.headers), String(status)).toEqual({
          deprecation: '@1795219200',
          sunset:
            status === 410 ? 'Thu, 01 Jan 2026 00:00:00 GMT' : 'Wed, 30 Jun 2027 00:00:00 GMT',
          link: successor,
        });
        expect(await deprecatedCalls(target), `counted: ${status}`).toBe(before + 1);
      }
    });
  });
});
