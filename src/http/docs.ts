import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Hono } from 'hono';
import { assetRoutes } from './assets.js';
import type { DevelopmentToken } from './landing.js';

const require = createRequire(import.meta.url);
const dist = dirname(require.resolve('swagger-ui-dist/package.json'));

const page = (token: string | undefined) => `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <title>Pet Store REST API</title>
    <link rel="icon" type="image/png" href="/assets/swagger-ui/favicon-32x32.png">
    <link rel="stylesheet" href="/assets/swagger-ui/swagger-ui.css">
    <style>
      body { margin: 0; }
      .petstore-links { font-family: sans-serif; padding: 8px 20px; background: #1b1b1b; color: #fff; }
      .petstore-links a { color: #89bf04; }
    </style>
  </head>
  <body>
    <nav class="petstore-links">
      Pet Store REST API, from <a href="/api/openapi.json">/api/openapi.json</a>.
      The GraphQL API has GraphiQL at <a href="/graphql">/graphql</a>.
    </nav>
    <div id="swagger-ui"></div>${
      // Development only: Swagger's Authorize starts with the development token.
      token
        ? `\n    <script type="application/json" id="development-token">${JSON.stringify(token)}</script>`
        : ''
    }
    <script src="/assets/swagger-ui/swagger-ui-bundle.js"></script>
    <script src="/assets/swagger-ui/init.js"></script>
  </body>
</html>
`;

/**
 * `/api/docs`: Swagger UI (from `swagger-ui-dist`, served by the app) on `/api/openapi.json`,
 * authorized with the development token in development.
 */
export const docsRoutes = (developmentToken: DevelopmentToken) =>
  new Hono()
    .get('/api/docs', async (c) => c.html(page(await developmentToken?.())))
    .route(
      '/',
      assetRoutes({
        '/assets/swagger-ui/swagger-ui.css': join(dist, 'swagger-ui.css'),
        '/assets/swagger-ui/swagger-ui-bundle.js': join(dist, 'swagger-ui-bundle.js'),
        '/assets/swagger-ui/favicon-32x32.png': join(dist, 'favicon-32x32.png'),
        '/assets/swagger-ui/init.js': fileURLToPath(
          new URL('./public/swagger-init.js', import.meta.url),
        ),
      }),
    );
