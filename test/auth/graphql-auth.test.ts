import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { graphql as gql } from '../generated/index.js';
import { createTestApp, describeDb, type TestApp, useTestApp } from '../helpers/app.js';
import { anonymous, errorCodes, graphql, withAuthorization } from '../helpers/graphql.js';

const Writes = {
  'pets:write': [
    gql(`mutation AuthCreateCategory { createCategory(input: { name: "Auth" }) { id } }`),
    gql(
      `mutation AuthUpdateCategory { updateCategory(id: "999999", input: { name: "Auth" }) { id } }`,
    ),
    gql(`mutation AuthDeleteCategory { deleteCategory(id: "999999") }`),
    gql(`mutation AuthCreatePet { createPet(input: { name: "A", categoryId: "999999" }) { id } }`),
    gql(
      `mutation AuthUpdatePet { updatePet(id: "999999", input: { name: "A", categoryId: "1" }) { id } }`,
    ),
    gql(`mutation AuthDeletePet { deletePet(id: "999999") }`),
  ],
  'orders:write': [
    gql(`mutation AuthPlaceOrder { placeOrder(input: { petId: "999999", quantity: 1 }) { id } }`),
    gql(`mutation AuthUpdateOrder { updateOrder(id: "999999", input: { complete: true }) { id } }`),
    gql(`mutation AuthCancelOrder { cancelOrder(id: "999999") }`),
  ],
  'inventory:write': [
    gql(
      `mutation AuthUpdateInventory { updateInventory(petId: "999999", input: { quantity: 1 }) { petId } }`,
    ),
  ],
  'orders:read': [
    gql(`query AuthOrders { orders { totalCount } }`),
    gql(`query AuthOrder { order(id: "999999") { id } }`),
  ],
} as const;

const PublicReads = gql(`
  query AuthPublicReads { pets { totalCount } categories { id } inventories { totalCount } pet(id: "1") { id } }
`);
const PetOrders = gql(
  `query AuthPetOrders { pets(first: 1) { edges { node { id name orders { totalCount } } } } }`,
);
const PetsAndOrders = gql(
  `query AuthPetsAndOrders { pets(first: 1) { totalCount } orders(first: 1) { totalCount } }`,
);

describeDb('authorisation over GraphQL', () => {
  const app = useTestApp({ AUTH_ISSUER: 'https://issuer.test', AUTH_AUDIENCE: 'petstore' });
  const tokenFor = (scopes: string[], claims = {}) =>
    app().token(scopes, { issuer: 'https://issuer.test', audience: 'petstore', ...claims });

  it.each(Object.entries(Writes))('operations needing %s', async (scope, documents) => {
    const others = ['pets:write', 'orders:read', 'orders:write', 'inventory:write'].filter(
      (s) => s !== scope,
    );
    const withoutScope = withAuthorization(app(), `Bearer ${await tokenFor(others)}`);
    const withScope = withAuthorization(app(), `Bearer ${await tokenFor([scope])}`);
    for (const document of documents as readonly TypedDocumentNode<
      unknown,
      Record<string, never>
    >[]) {
      const missing = await graphql(anonymous(app()), document);
      expect(errorCodes(missing)).toEqual(['UNAUTHENTICATED']);
      expect(missing.errors?.[0]?.extensions.status).toBe(401);
      expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer/);

      const forbidden = await graphql(withoutScope, document);
      expect(errorCodes(forbidden)).toEqual(['FORBIDDEN']);
      expect(forbidden.errors?.[0]?.extensions.status).toBe(403);

      const allowed = await graphql(withScope, document);
      expect(errorCodes(allowed)).not.toContain('UNAUTHENTICATED');
      expect(errorCodes(allowed)).not.toContain('FORBIDDEN');
    }
  });

  it('keeps pets, categories and inventory public, and hides Pet.orders without orders:read', async () => {
    const { makePet } = await import('../helpers/factories.js');
    await makePet(app());
    const reads = await graphql(anonymous(app()), PublicReads);
    expect(reads.errors).toBeUndefined();
    expect(reads.data?.pets.totalCount).toBeGreaterThan(0);

    const hidden = await graphql(anonymous(app()), PetOrders);
    expect(errorCodes(hidden)).toEqual(['UNAUTHENTICATED']);
    // The failure stays local: the pet arrives, with `orders: null`.
    const pet = hidden.data?.pets.edges[0]?.node;
    expect(pet).toMatchObject({ name: expect.any(String), orders: null });
    expect(hidden.errors?.[0]?.path).toEqual(['pets', 'edges', 0, 'node', 'orders']);
    const shown = await graphql(
      withAuthorization(app(), `Bearer ${await tokenFor(['orders:read'])}`),
      PetOrders,
    );
    expect(shown.errors).toBeUndefined();
  });

  it('keeps the public data of an anonymous document that also asks for orders', async () => {
    const { makePet } = await import('../helpers/factories.js');
    await makePet(app());
    const response = await graphql(anonymous(app()), PetsAndOrders);
    expect(response.status).toBe(200);
    expect(response.data?.pets.totalCount).toBeGreaterThan(0);
    expect(response.data?.orders).toBeNull();
    expect(errorCodes(response)).toEqual(['UNAUTHENTICATED']);
    expect(response.errors?.[0]?.path).toEqual(['orders']);
  });

  it.each([
    ['expired', () => tokenFor(['pets:write'], { expiresIn: -60 })],
    ['wrongly signed', async () => `${(await tokenFor(['pets:write'])).slice(0, -4)}AAAA`],
    ['for another audience', () => tokenFor(['pets:write'], { audience: 'someone-else' })],
    ['from another issuer', () => tokenFor(['pets:write'], { issuer: 'https://evil.test' })],
    ['not a bearer token', async () => 'garbage'],
  ])('rejects the whole request with 401 for a token that is %s', async (_case, makeToken) => {
    const token = await makeToken();
    const response = await graphql(
      withAuthorization(app(), token.includes('.') ? `Bearer ${token}` : token),
      PublicReads,
    );
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer .*error="invalid_token"/);
    expect(response.data).toBeUndefined();
    expect(errorCodes(response)).toEqual(['UNAUTHENTICATED']);
    expect(response.errors?.[0]?.extensions.status).toBe(401);
  });
});

describeDb('tokens verified with a JWKS endpoint', () => {
  let jwks: Server;
  let app: TestApp;
  let privateKey: CryptoKey;

  beforeAll(async () => {
    const pair = await generateKeyPair('ES256');
    privateKey = pair.privateKey;
    const publicJwk = {
      ...(await exportJWK(pair.publicKey)),
      kid: 'test-key',
      alg: 'ES256',
      use: 'sig',
    };
    jwks = createServer((_request, response) => {
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ keys: [publicJwk] }));
    });
    await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
    const { port } = jwks.address() as AddressInfo;
    app = await createTestApp({ AUTH_JWKS_URL: `http://127.0.0.1:${port}/.well-known/jwks.json` });
  });

  afterAll(async () => {
    await app?.close();
    jwks?.close();
  });

  it('accepts a token signed by the JWKS key and rejects an HS256 one', async () => {
    const token = await new SignJWT({ scope: 'pets:write' })
      .setProtectedHeader({ alg: 'ES256', kid: 'test-key' })
      .setSubject('jwks-user')
      .setExpirationTime('5m')
      .sign(privateKey);
    const create = gql(
      `mutation JwksCreateCategory { createCategory(input: { name: "Jwks" }) { name } }`,
    );
    const accepted = await graphql(withAuthorization(app, `Bearer ${token}`), create);
    expect(accepted.data?.createCategory).toEqual({ name: 'Jwks' });

    const rejected = await graphql(
      withAuthorization(app, `Bearer ${await app.token(['pets:write'])}`),
      create,
    );
    expect(rejected.status).toBe(401);
    expect(errorCodes(rejected)).toEqual(['UNAUTHENTICATED']);
  });
});
