import { serverAudits } from 'graphql-http';
import { expect, it } from 'vitest';
import { describeDb, useTestApp } from '../helpers/app.js';

describeDb('GraphQL over HTTP', () => {
  // Every plugin on: limits, rate limiting (with a budget the audits stay under), auth.
  const app = useTestApp({ RATE_LIMIT_PER_MINUTE: '100000' });

  it('passes every graphql-http server audit', async () => {
    const audits = serverAudits({
      url: 'http://petstore.test/graphql',
      fetchFn: (input: RequestInfo | URL, init?: RequestInit) =>
        app().fetch(new Request(input, init)),
    });
    const results = await Promise.all(audits.map((audit) => audit.fn()));
    const notOk = results
      .filter((result) => result.status !== 'ok')
      .map((result) => `${result.name}: ${result.status}`);
    expect(notOk).toEqual([]);
    expect(results.length).toBeGreaterThanOrEqual(61);
  });
});
