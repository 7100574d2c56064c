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
    expect(html).toContain('<title>Pet Store gateway · GraphiQL</title>');

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

  it('/ lists where everything is: a page for a browser, JSON for a program', async () => {
    const json = await app().fetch(get('/'));
    expect(json.status).toBe(200);
    const body = (await json.json()) as { links: Record<string, { href: string }> };
    const hrefs = Object.values(body.links).map((link) => link.href);
    expect(hrefs).toEqual([
      '/graphql',
      '/api',
      '/api/docs',
      '/api/openapi.json',
      '/health/ready',
      '/metrics',
    ]);
    for (const href of hrefs) {
      const response = await app().fetch(get(href, { accept: 'text/html' }));
      expect({ href, status: response.status }).toEqual({ href, status: 200 });
    }
    const html = await app().fetch(get('/', { accept: 'text/html,*/*' }));
    expect(html.headers.get('content-type')).toMatch(/^text\/html/);
    const text = await html.text();
    for (const href of hrefs) expect(text).toContain(`<a href="${href}">`);
    // The test app has a configured secret: no development token on any page.
    expect(text).not.toContain('Development token');
    expect(await (await app().fetch(get('/api/docs'))).text()).not.toContain('development-token');
    const graphiql = await (await app().fetch(get('/graphql', { accept: 'text/html' }))).text();
    expect(graphiql).not.toContain('Bearer');
  });

  it('/api lists the REST resources, each of which answers', async () => {
    const response = await app().fetch(get('/api'));
    const body = (await response.json()) as { resources: Record<string, string> };
    expect(Object.keys(body.resources)).toEqual(['pets', 'categories', 'orders', 'inventory']);
    for (const [name, href] of Object.entries(body.resources)) {
      const listed = await app().fetch(get(href, { authorization: app().authorization }));
      expect({ name, status: listed.status }).toEqual({ name, status: 200 });
    }
  });
});

describeDb('the landing page in development', () => {
  const app = useTestApp({ AUTH_JWT_SECRET: '' });

  it('starts GraphiQL and Swagger UI with the development token', async () => {
    const graphiql = await (await app().fetch(get('/graphql', { accept: 'text/html' }))).text();
    const options = JSON.parse(
      /id="graphiql-options">(.*)<\/script>/.exec(graphiql)?.[1]?.replace(/\\u003c/g, '<') ?? '{}',
    ) as { headers?: string };
    expect(JSON.parse(options.headers ?? '{}')).toEqual({
      Authorization: expect.stringMatching(/^Bearer [\w-]+\.[\w-]+\.[\w-]+$/),
    });
    const docs = await (await app().fetch(get('/api/docs'))).text();
    expect(docs).toMatch(
      /<script type="application\/json" id="development-token">"[\w.-]+"<\/script>/,
    );
  });

  it('shows an all-scopes token that the API accepts', async () => {
    const html = await (await app().fetch(get('/', { accept: 'text/html' }))).text();
    const token = /<pre>([\w.-]+)<\/pre>/.exec(html)?.[1];
    expect(token).toBeDefined();
    const orders = await app().fetch(
      get('/api/store/orders', { authorization: `Bearer ${token}` }),
    );
    expect(orders.status).toBe(200);
  });
});
