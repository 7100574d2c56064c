import type { Fixture } from './fixture.js';
import { type HttpRequest, send } from './http.js';
import type { Servers } from './measure.js';
import type { ServerProcess } from './processes.js';
import type { Scenario } from './scenarios.js';
import { median } from './stats.js';

export interface Verification {
  statementsPerRequest: { product: number; floor?: number; baseline?: number };
}

/** Where two bodies first differ, with a little context, for the error message. */
function firstDifference(a: string, b: string, other: string): string {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  const from = Math.max(0, i - 40);
  return `at character ${i}:\n  product:  …${a.slice(from, i + 60)}\n  ${other}: …${b.slice(from, i + 60)}`;
}

/**
 * The product's GraphQL answer without its `extensions.cost`: the framework floor has no demand
 * control (bare Yoga), so that report is the one thing it cannot answer alike.
 */
export const withoutCostReport = (body: string) =>
  body.replace(/,"extensions":\{"cost":\{[^{}]*\}\}\}$/, '}');

/**
 * Before any timing: sends the scenario's first `count` requests one at a time, checks every answer
 * (and, with a floor or a baseline, that each answers the product's status and the product's
 * bytes), and counts the SQL statements each server ran for them. Any wrong answer, a 404
 * included, fails the run: a route the bench measures that stops answering is a regression, never
 * a scenario to skip.
 */
export async function verifyScenario(
  scenario: Scenario,
  requests: HttpRequest[],
  fixture: Fixture,
  { product, floor, baseline }: Servers,
  count: number,
): Promise<Verification> {
  const sample = requests.slice(0, count);
  const others = [
    ['floor', floor],
    ['baseline', baseline],
  ].filter((entry): entry is [string, ServerProcess] => entry[1] !== undefined);
  const all: [string, ServerProcess][] = [['product', product], ...others];
  const counted = new Map<string, number[]>(all.map(([role]) => [role, []]));
  // The statements `server` ran while it answered `request` (alone: the requests go one at a time).
  const sendCounting = async (role: string, server: ServerProcess, request: HttpRequest) => {
    const before = await server.stats();
    const answer = await send(server.url, request);
    const after = await server.stats();
    counted.get(role)?.push(after.statements - before.statements);
    return answer;
  };
  for (const request of sample) {
    const where = `${scenario.name}, ${request.method} ${request.path} ${request.body ?? ''}`;
    const answer = await sendCounting('product', product, request);
    try {
      scenario.check(request, answer, fixture);
    } catch (error) {
      throw new Error(`the product answered wrongly (${where}): ${(error as Error).message}`);
    }
    for (const [role, server] of others) {
      const expected = await sendCounting(role, server, request);
      try {
        scenario.check(request, expected, fixture);
      } catch (error) {
        throw new Error(`the ${role} answered wrongly (${where}): ${(error as Error).message}`);
      }
      const productBody = role === 'floor' ? withoutCostReport(answer.body) : answer.body;
      if (answer.status !== expected.status || productBody !== expected.body) {
        throw new Error(
          `product and ${role} differ (${where}): status ${answer.status} vs ${expected.status}, ${firstDifference(productBody, expected.body, role)}`,
        );
      }
    }
  }
  // The median request's: a statement of the product's own timers (the usage counts it writes
  // every ten seconds, say) that falls in the window of one request is not that request's.
  const perRequest = [...counted].map(([role, counts]) => [role, median(counts)] as const);
  return {
    statementsPerRequest: Object.fromEntries(perRequest) as Verification['statementsPerRequest'] & {
      product: number;
    },
  };
}
