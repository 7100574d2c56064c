import { expect, it } from 'vitest';
import { describeDb, useTestApp } from '../helpers/app.js';

const get = (path: string, headers: Record<string, string> = {}) =>
  new Request(`http://petstore.test${path}`, { headers });

/** Every src/href of a page: they must all point at the app itself. */
const references = (html: string) =>
  [...html.matchAll(/\s(?:src|href)="([^"]*)"/g)].map(([, url]) => url as string);

describeDb('developer pages', () => {
  const app = useTestApp();

  async function expectLocalAssets(html: string) {
    const assets = references(html).filter((url) => url.startsWith('/assets/'));
    expect(references(html).filter((url) => /^(https?:)?\/\//.test(url))).toEqual([]);
    for (const asset of assets) {
      const response = await app().fetch(get(asset));
      expect({ asset, status: response.status }).toEqual({ asset, status: 200 });
      expect(response.headers.get('content-type')).toMatch(/^(text\/(css|javascript)|image\/png)/);
      expect((await response.arrayBuffer()).byteLength).toBeGreaterThan(0);
    }
    return assets;
  }

  it('/api/docs is Swagger UI on /api/openapi.json, with every asset served by the app', async () => {
    const response = await app().fetch(get('/api/docs'));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await response.text();
    expect(await expectLocalAssets(html)).toEqual([
      '/assets/swagger-ui/favicon-32x32.png',
      '/assets/swagger-ui/swagger-ui.css',
      '/assets/swagger-ui/swagger-ui-bundle.js',
      '/assets/swagger-ui/init.js',
    ]);
    const init = await (await app().fetch(get('/assets/swagger-ui/init.js'))).text();
    expect(init).toContain("url: '/api/openapi.json'");
    expect(init).toContain('validatorUrl: null');
  });

  it('GraphiQL (GET /graphql from a browser) loads Yoga’s GraphiQL from the app, and links the REST docs', async () => {
    const response = await app().fetch(get('/graphql', { accept: 'text/html' }));
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(await expectLocalAssets(html)).toEqual([
      '/assets/graphiql/graphiql.css',
      '/assets/graphiql/init.js',
    ]);
    const options = JSON.parse(
      /<script type="application\/json" id="graphiql-options">(.*?)<\/script>/s.exec(html)?.[1] ??
        'null',
    );
    expect(options.title).toContain('<a href="/api/docs">REST API docs</a>');
    expect(options.query).toContain('query AvailablePets');
    expect(options.query).toContain('/api/docs');
    expect(html).toContain('<title>Pet Store gateway · REST API docs</title>');

    const init = await (await app().fetch(get('/assets/graphiql/init.js'))).text();
    const loaded = [...init.matchAll(/'(\/assets\/graphiql\/[^']+)'/g)].map(([, url]) => url);
    expect(loaded).toHaveLength(4);
    for (const url of loaded) expect((await app().fetch(get(url as string))).status).toBe(200);
  });

  it('serves only the listed asset files', async () => {
    for (const path of [
      '/assets/graphiql/package.json',
      '/assets/swagger-ui/index.html',
      '/assets/graphiql/..%2Fpackage.json',
    ]) {
      const response = await app().fetch(get(path));
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ code: 'NOT_FOUND', status: 404 });
    }
  });
});
