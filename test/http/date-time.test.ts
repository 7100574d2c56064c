import { beforeAll, expect, it } from 'vitest';
import { describeDb, useTestApp } from '../helpers/app.js';
import { makeOrder, makePet } from '../helpers/factories.js';
import { graphqlRequest } from '../helpers/graphql.js';
import { expectError, rest } from '../helpers/rest.js';

/** Strings both edges accept, with the instant each names. */
const accepted: [string, string][] = [
  ['2026-12-01T10:00:00Z', '2026-12-01T10:00:00.000Z'],
  ['2028-02-29T00:00:00Z', '2028-02-29T00:00:00.000Z'],
  ['2000-02-29T12:00:00Z', '2000-02-29T12:00:00.000Z'],
  ['2026-12-01t10:00:00z', '2026-12-01T10:00:00.000Z'],
  ['2026-12-01T10:00:00.5Z', '2026-12-01T10:00:00.500Z'],
  ['2026-12-01T10:00:00.123456789Z', '2026-12-01T10:00:00.123Z'],
  ['2026-12-01T10:00:00+05:30', '2026-12-01T04:30:00.000Z'],
  ['2026-12-31T23:30:00-01:00', '2027-01-01T00:30:00.000Z'],
  ['2026-12-01T10:00:00-00:00', '2026-12-01T10:00:00.000Z'],
];

/** Strings both edges refuse. */
const refused = [
  '2026-02-30T00:00:00Z',
  '2027-02-29T00:00:00Z',
  '2100-02-29T00:00:00Z',
  '2026-04-31T00:00:00Z',
  '2026-13-01T00:00:00Z',
  '2026-00-10T00:00:00Z',
  '2026-12-31T23:59:60Z', // a leap second: an instant is stored to the millisecond
  '2026-12-01T24:00:00Z',
  '2026-12-01T10:60:00Z',
  '2026-12-01 10:00:00Z', // a space instead of T
  '2026-12-01T10:00:00', // no offset
  '2026-12-01T10:00Z',
  '2026-12-01T10:00:00+24:00',
  '2026-12-01T10:00:00+0530',
  '2026-12-01',
  '+02026-12-01T10:00:00Z',
  'tomorrow',
  '',
];

describeDb('one date-time rule for both edges', () => {
  const app = useTestApp();
  let petId: bigint;
  let orderId: bigint;

  beforeAll(async () => {
    petId = (await makePet(app(), { quantity: 10_000 })).id;
    orderId = (await makeOrder(app(), { petId })).id;
  });

  /** What each edge answers for a shipDate: the stored instant, or the error's code. */
  async function throughEveryPath(shipDate: string) {
    const created = await rest(app(), 'POST', '/store/orders', {
      json: { petId, quantity: 1, shipDate },
    });
    const patched = await rest(app(), 'PATCH', `/store/orders/${orderId}`, { json: { shipDate } });
    const overGraphql = async (query: string, variables?: object) => {
      const response = await app().fetch(
        graphqlRequest({ query, variables }, { authorization: app().authorization }),
      );
      const body = (await response.json()) as {
        data?: Record<string, { shipDate: string }> | null;
        errors?: { extensions: { code: string } }[];
      };
      return body.errors?.[0]?.extensions.code ?? Object.values(body.data ?? {})[0]?.shipDate;
    };
    return {
      restPost: created.status === 201 ? (created.body as { shipDate: string }).shipDate : created,
      restPatch: patched.status === 200 ? (patched.body as { shipDate: string }).shipDate : patched,
      graphqlVariable: await overGraphql(
        'mutation($d: DateTime) { placeOrder(input: { petId: "' +
          petId +
          '", quantity: 1, shipDate: $d }) { shipDate } }',
        { d: shipDate },
      ),
      graphqlUpdate: await overGraphql(
        'mutation($d: DateTime) { updateOrder(id: "' +
          orderId +
          '", input: { shipDate: $d }) { shipDate } }',
        { d: shipDate },
      ),
      graphqlLiteral: await overGraphql(
        `mutation { placeOrder(input: { petId: "${petId}", quantity: 1, shipDate: ${JSON.stringify(shipDate)} }) { shipDate } }`,
      ),
    };
  }

  it.each(accepted)('accepts %s on both edges as %s', async (shipDate, instant) => {
    expect(await throughEveryPath(shipDate)).toEqual({
      restPost: instant,
      restPatch: instant,
      graphqlVariable: instant,
      graphqlUpdate: instant,
      graphqlLiteral: instant,
    });
  });

  it.each(refused)('refuses %j on both edges', async (shipDate) => {
    const answers = await throughEveryPath(shipDate);
    for (const response of [answers.restPost, answers.restPatch]) {
      expect(typeof response).toBe('object');
      expectError(
        response as Parameters<typeof expectError>[0],
        400,
        'VALIDATION_FAILED',
        /^shipDate must be an RFC 3339 date-time/,
      );
    }
    expect(answers.graphqlVariable).toBe('VALIDATION_FAILED');
    expect(answers.graphqlUpdate).toBe('VALIDATION_FAILED');
    expect(answers.graphqlLiteral).toBe('GRAPHQL_VALIDATION_FAILED');
  });
});
