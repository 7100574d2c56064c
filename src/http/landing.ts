import { Hono } from 'hono';
import { JSON_CONTENT_TYPE } from './content-type.js';

/**
 * In development (a generated secret), what mints the development token the pages show
 * (`mintDevelopmentToken`, src/auth/dev-secret.ts); else undefined.
 */
export type DevelopmentToken = (() => Promise<string>) | undefined;

/** Where everything is: what `GET /` lists, for people and for programs. */
const links = {
  graphql: { href: '/graphql', title: 'GraphQL API (GraphiQL in a browser)' },
  rest: { href: '/api', title: 'REST API: the index of its resources' },
  restDocs: { href: '/api/docs', title: 'REST API documentation (Swagger UI)' },
  openapi: { href: '/api/openapi.json', title: 'OpenAPI 3.0.3 document of the REST API' },
  health: { href: '/health/ready', title: 'Readiness (database, Redis)' },
  metrics: { href: '/metrics', title: 'Prometheus metrics' },
};

/** The REST resources, for `GET /api`. */
const resources = {
  pets: '/api/pets',
  categories: '/api/categories',
  orders: '/api/store/orders',
  inventory: '/api/store/inventory',
};

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

function page(token: string | undefined): string {
  const items = Object.values(links)
    .map(({ href, title }) => `      <li><a href="${href}">${href}</a>: ${escapeHtml(title)}</li>`)
    .join('\n');
  const development = token
    ? `
    <h2>Development token</h2>
    <p>All scopes, valid for a day; send it as <code>Authorization: Bearer &lt;token&gt;</code>
      (<code>npm run token -- --help</code> mints others). Shown only in development.</p>
    <pre>${escapeHtml(token)}</pre>`
    : '';
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <title>Pet Store gateway</title>
    <link rel="icon" href="data:,">
    <style>
      body { font-family: sans-serif; max-width: 48rem; margin: 2rem auto; padding: 0 1rem; }
      pre { white-space: pre-wrap; word-break: break-all; background: #f4f4f4; padding: 0.5rem; }
    </style>
  </head>
  <body>
    <h1>Pet Store gateway</h1>
    <p>A GraphQL API over a pet store, with a REST façade for older clients.</p>
    <ul>
${items}
    </ul>${development}
  </body>
</html>
`;
}

const json = { 'Content-Type': JSON_CONTENT_TYPE };

/**
 * `GET /`: a page of links for a browser (with an all-scopes token in development, when the
 * server generated its secret), the same links as JSON for any other client; `GET /api`: the
 * REST resources. Both answer before the token check and the rate limit, like the other pages.
 */
export function landingRoutes(developmentToken: DevelopmentToken): Hono {
  return new Hono()
    .get('/', async (c) => {
      if ((c.req.header('accept') ?? '').includes('text/html'))
        return c.html(page(await developmentToken?.()));
      return c.json({ name: 'Pet Store gateway', links }, 200, json);
    })
    .get('/api', (c) =>
      c.json({ resources, documentation: links.openapi, docs: links.restDocs }, 200, json),
    );
}
