import type { Fixture } from './fixture.js';
import { type HttpRequest, send } from './http.js';
import type { Servers } from './measure.js';
import type { ServerProcess } from './processes.js';
import type { Scenario } from './scenarios.js';

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
  const before = await Promise.all(all.map(([, server]) => server.stats()));
  for (const request of sample) {
    const where = `${scenario.name}, ${request.method} ${request.path} ${request.body ?? ''}`;
    const answer = await send(product.url, request);
    try {
      scenario.check(request, answer, fixture);
    } catch (error) {
      throw new Error(`the product answered wrongly (${where}): ${(error as Error).message}`);
    }
    for (const [role, server] of others) {
      const expected = await send(server.url, request);
      try {
        scenario.check(request, expected, fixture);
      } catch (error) {
        throw new Error(`the ${role} answered wrongly (${where}): ${(error as Error).message}`);
      }
      if (answer.status !== expected.status || answer.body !== expected.body) {
        throw new Error(
          `product and ${role} differ (${where}): status ${answer.status} vs ${expected.status}, ${firstDifference(answer.body, expected.body, role)}`,
        );
      }
    }
  }
  const after = await Promise.all(all.map(([, server]) => server.stats()));
  const perRequest = all.map(
    ([role], i) =>
      [role, ((after[i]?.statements ?? 0) - (before[i]?.statements ?? 0)) / sample.length] as const,
  );
  return {
    statementsPerRequest: Object.fromEntries(perRequest) as Verification['statementsPerRequest'] & {
      product: number;
    },
  };
}
