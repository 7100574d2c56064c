import { createHash } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import {
  describeBrowser,
  foreignRequests,
  saveScreenshot,
  useServerAndBrowser,
} from '../helpers/browser.js';

/** A manifest as GraphQL Code Generator writes it: one query, on one line. */
const document = 'query PersistedPets { pets(first: 2, status: available) { totalCount } }';
const manifest = join(tmpdir(), `petstore-graphiql-manifest-${process.pid}.json`);
writeFileSync(
  manifest,
  JSON.stringify({ [`sha256:${createHash('sha256').update(document).digest('hex')}`]: document }),
);

describeBrowser(
  'GraphiQL under PERSISTED_OPERATIONS_ONLY, in Chromium',
  { timeout: 60_000 },
  () => {
    const started = useServerAndBrowser({ PERSISTED_OPERATIONS_ONLY: manifest });
    afterAll(() => rmSync(manifest, { force: true }));

    it('loads the schema without introspection, says why, and runs the manifest’s operation', async () => {
      const { server, browser } = started();
      const page = await browser.context.newPage();
      const foreign = foreignRequests(page, server.url);
      const refused: string[] = [];
      page.on('response', (response) => {
        if (response.status() >= 400) refused.push(`${response.status()} ${response.url()}`);
      });
      await page.goto(`${server.url}/graphql`);
      await page.getByRole('link', { name: 'REST API docs' }).waitFor();
      await page.getByText('persisted operations only').waitFor();
      const editor = page.locator('.graphiql-query-editor');
      await editor.getByText('PERSISTED_QUERY_ONLY').waitFor();

      // Docs from the schema that came with the page.
      await page.getByRole('button', { name: /Show Documentation Explorer/ }).click();
      await page.locator('.graphiql-doc-explorer').getByText('Query', { exact: true }).waitFor();

      await page.getByRole('button', { name: /^Execute query/ }).click();
      const result = page.locator('.result-window').filter({ hasText: '"totalCount"' });
      await result.waitFor();
      expect((await result.innerText()).replace(/\s+/g, '')).toMatch(/"totalCount":\d+/);
      await saveScreenshot(page, 'graphiql-persisted');

      // The start said so.
      expect(server.logs).toContainEqual(
        expect.objectContaining({
          msg: expect.stringMatching(/^persisted operations only: the 1 /),
        }),
      );
      expect(server.logs.find((line) => line.url)?.persistedOperationsOnly).toBe(manifest);
      expect(refused).toEqual([]);
      expect(foreign).toEqual([]);
      expect(
        server.logs.filter((line) => line.msg === 'request' && line.path === '/graphql'),
      ).toContainEqual(expect.objectContaining({ operation: 'PersistedPets', status: 200 }));
    });
  },
);
