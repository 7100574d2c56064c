import type { Fixture } from './fixture.js';
import { type HttpRequest, send } from './http.js';
import type { ServerProcess } from './processes.js';
import type { Scenario } from './scenarios.js';

export interface Verification {
  statementsPerRequest: { product: number; baseline?: number };
}

/** Where two bodies first differ, with a little context, for the error message. */
function firstDifference(a: string, b: string): string {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  const from = Math.max(0, i - 40);
  return `at character ${i}:\n  product:  …${a.slice(from, i + 60)}\n  baseline: …${b.slice(from, i + 60)}`;
}

/**
 * Before any timing: sends the scenario's first `count` requests one at a time, checks every answer
 * (and, with a baseline, that both servers answer the same status and the same bytes), and counts
 * the SQL statements each server ran for them. Any wrong answer, a 404 included, fails the run: a
 * route the bench measures that stops answering is a regression, never a scenario to skip.
 */
export async function verifyScenario(
  scenario: Scenario,
  requests: HttpRequest[],
  fixture: Fixture,
  product: ServerProcess,
  baseline: ServerProcess | undefined,
  count: number,
): Promise<Verification> {
  const sample = requests.slice(0, count);
  const before = await Promise.all([product.stats(), baseline?.stats()]);
  for (const request of sample) {
    const answer = await send(product.url, request);
    const where = `${scenario.name}, ${request.method} ${request.path} ${request.body ?? ''}`;
    try {
      scenario.check(request, answer, fixture);
    } catch (error) {
      throw new Error(`the product answered wrongly (${where}): ${(error as Error).message}`);
    }
    if (!baseline) continue;
    const expected = await send(baseline.url, request);
    try {
      scenario.check(request, expected, fixture);
    } catch (error) {
      throw new Error(`the baseline answered wrongly (${where}): ${(error as Error).message}`);
    }
    if (answer.status !== expected.status || answer.body !== expected.body) {
      throw new Error(
        `product and baseline differ (${where}): status ${answer.status} vs ${expected.status}, ${firstDifference(answer.body, expected.body)}`,
      );
    }
  }
  const after = await Promise.all([product.stats(), baseline?.stats()]);
  const perRequest = (a: number | undefined, b: number | undefined) =>
    ((b ?? 0) - (a ?? 0)) / sample.length;
  return {
    statementsPerRequest: {
      product: perRequest(before[0].statements, after[0].statements),
      ...(baseline ? { baseline: perRequest(before[1]?.statements, after[1]?.statements) } : {}),
    },
  };
}
