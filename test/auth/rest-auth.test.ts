import { request as httpRequest } from 'node:http';
import { expect, it } from 'vitest';
import { allRoutes } from '../../src/rest/routes/index.js';
import { describeDb, useTestApp } from '../helpers/app.js';
import { anonymous, withAuthorization } from '../helpers/client.js';
import { makeCategory, makeOrder, makePet } from '../helpers/factories.js';
import { serveApp } from '../helpers/live.js';
import { expectError, rest } from '../helpers/rest.js';

const allScopes = ['pets:write', 'orders:read', 'orders:write', 'inventory:write'];

describeDb('authorisation over REST', () => {
  const app = useTestApp({ AUTH_AUDIENCE: 'petstore' });
  const bearer = async (scopes: string[], claims = {}) =>
    `Bearer ${await app().token(scopes, { audience: 'petstore', ...claims })}`;

  /** A request each route accepts (valid ids and bodies), so only the token decides. */
  async function requestFor(method: string, path: string) {
    const pet = await makePet(app(), { quantity: 5 });
    const category = await makeCategory(app());
    // The order is on another pet, so the pet itself can be deleted.
    const order = await makeOrder(app(), { petId: (await makePet(app(), { quantity: 5 })).id });
    const url = path
      .replace('{petId}', String(pet.id))
      .replace('{categoryId}', String(category.id))
      .replace('{orderId}', String(order.id));
    const bodies: Record<string, unknown> = {
      'post /pets': { name: 'Auth', categoryId: category.id },
      'put /pets/{petId}': { name: 'Auth', categoryId: category.id },
      'post /categories': { name: `Auth ${category.id}` },
      'put /categories/{categoryId}': { name: `Auth ${category.id}` },
      'post /store/orders': { petId: pet.id, quantity: 1 },
      'patch /store/orders/{orderId}': { complete: true },
      'put /store/inventory/{petId}': { quantity: 3 },
    };
    return { url, json: bodies[`${method} ${path}`] };
  }

  const scoped = allRoutes.filter((route) => route.spec.scope);
  const open = allRoutes.filter((route) => !route.spec.scope);

  it('declares a scope on every write and on order reads', () => {
    const names = scoped.map((route) => `${route.spec.method} ${route.spec.path}`).sort();
    expect(names).toEqual(
      [
        'delete /categories/{categoryId}',
        'delete /pets/{petId}',
        'delete /store/orders/{orderId}',
        'get /store/orders',
        'get /store/orders/{orderId}',
        'patch /store/orders/{orderId}',
        'post /categories',
        'post /pets',
        'post /store/orders',
        'put /categories/{categoryId}',
        'put /pets/{petId}',
        'put /store/inventory/{petId}',
      ].sort(),
    );
  });

  it.each(
    scoped.map(
      (route) => [`${route.spec.method.toUpperCase()} ${route.spec.path}`, route.spec] as const,
    ),
  )('%s: 401 without a token, 403 without the scope, success with it', async (_name, spec) => {
    const scope = spec.scope ?? '';
    const { url, json } = await requestFor(spec.method, spec.path);
    const missing = await rest(anonymous(app()), spec.method.toUpperCase(), url, { json });
    expectError(missing, 401, 'UNAUTHENTICATED', new RegExp(scope));
    expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer/);

    const others = allScopes.filter((s) => s !== scope);
    const forbidden = await rest(
      withAuthorization(app(), await bearer(others)),
      spec.method.toUpperCase(),
      url,
      {
        json,
      },
    );
    expectError(forbidden, 403, 'FORBIDDEN', new RegExp(scope));

    const allowed = await rest(
      withAuthorization(app(), await bearer([scope])),
      spec.method.toUpperCase(),
      url,
      {
        json,
      },
    );
    expect(allowed.status).toBe(spec.success.status);
  });

  it.each(
    open.filter((route) => route.spec.method === 'get').map((route) => [route.spec.path] as const),
  )('GET %s stays public', async (path) => {
    const { url } = await requestFor('get', path);
    const response = await rest(anonymous(app()), 'GET', url, {
      headers: { 'user-agent': 'legacy-client' },
    });
    expect(response.status).toBe(200);
  });

  it.each([
    ['expired', () => bearer(['pets:write'], { expiresIn: -60 })],
    ['wrongly signed', async () => `${(await bearer(['pets:write'])).slice(0, -4)}AAAA`],
    ['for another audience', () => bearer(['pets:write'], { audience: 'other' })],
  ])('refuses a token that is %s with 401, even on a public read', async (_case, makeHeader) => {
    const authorization = await makeHeader();
    for (const [method, url] of [
      ['GET', '/categories'],
      ['POST', '/categories'],
    ] as const) {
      const response = await rest(withAuthorization(app(), authorization), method, url, {
        json: method === 'POST' ? { name: 'Never' } : undefined,
      });
      expectError(response, 401, 'UNAUTHENTICATED');
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer .*error="invalid_token"/);
      // The same content type as every other JSON answer.
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    }
  });

  it('refuses a token that was accepted (and kept verified) once it has expired', async () => {
    // Three seconds, not one: `exp` is in whole seconds, so a one-second token minted late in a
    // second could expire before a loaded machine had answered both reads.
    const authorization = await bearer(['pets:write'], { expiresIn: 3 });
    const client = withAuthorization(app(), authorization);
    const read = () => rest(client, 'GET', '/categories');
    expect((await read()).status).toBe(200);
    expect((await read()).status).toBe(200);
    // Wait until the second after `exp` has begun.
    const payload = authorization.split('.')[1] ?? '';
    const { exp } = JSON.parse(Buffer.from(payload, 'base64url').toString()) as { exp: number };
    await new Promise((resolve) =>
      setTimeout(resolve, Math.max(0, exp * 1000 - Date.now()) + 1100),
    );
    expectError(await read(), 401, 'UNAUTHENTICATED', /expired/);
  });

  it('over real HTTP, reads a repeated Authorization as one invalid value, not as its first', async () => {
    const served = await serveApp(app());
    // Node keeps the first of a repeated Authorization; the server must see both, as fetch would.
    const post = (authorization: string | string[]) =>
      new Promise<number>((resolve, reject) => {
        const request = httpRequest(
          `${served.url}/api/categories`,
          { method: 'POST' },
          (answer) => {
            answer.resume();
            resolve(answer.statusCode ?? 0);
          },
        );
        request.setHeader('authorization', authorization);
        request.setHeader('content-type', 'application/json');
        request.on('error', reject);
        request.end(JSON.stringify({ name: `Repeated ${Math.random()}` }));
      });
    try {
      const valid = await bearer(['pets:write']);
      expect(await post(valid)).toBe(201);
      expect(await post([valid, valid])).toBe(401);
      expect(await post([valid, 'Bearer nonsense'])).toBe(401);
    } finally {
      await served.close();
    }
  });
});
