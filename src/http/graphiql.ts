import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { GraphiQLOptions } from 'graphql-yoga';
import { assetRoutes } from './assets.js';

const require = createRequire(import.meta.url);
const dist = join(dirname(require.resolve('@graphql-yoga/graphiql/package.json')), 'dist');

/**
 * Yoga's own GraphiQL build (`@graphql-yoga/graphiql`), served by the app: Yoga's default page
 * loads it from a CDN, which closed networks and strict CSPs do not allow.
 */
export const graphiqlAssets = assetRoutes({
  '/assets/graphiql/graphiql.css': join(dist, 'graphiql.css'),
  '/assets/graphiql/yoga-graphiql.js': join(dist, 'yoga-graphiql.umd.js'),
  '/assets/graphiql/editor.worker.js': join(dist, 'monacoeditorwork/editor.worker.bundle.js'),
  '/assets/graphiql/json.worker.js': join(dist, 'monacoeditorwork/json.worker.bundle.js'),
  '/assets/graphiql/graphql.worker.js': join(dist, 'monacoeditorwork/graphql.worker..bundle.js'),
  '/assets/graphiql/init.js': fileURLToPath(new URL('./public/graphiql-init.js', import.meta.url)),
});

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/**
 * The GraphiQL page (Yoga's `renderGraphiQL` hook). `options.title` may hold HTML (GraphiQL renders
 * it as such, which is how the page links to the REST docs); the browser tab shows the text before
 * its first `·`, then "GraphiQL" (not the link's words).
 */
export function renderGraphiQLPage(options: GraphiQLOptions): string {
  const name = (options.title ?? '')
    .replace(/<[^>]*>/g, '')
    .split('·')[0]
    ?.trim();
  const title = escapeHtml(name ? `${name} · GraphiQL` : 'GraphiQL');
  // This GraphiQL build starts from `query` and ignores `defaultQuery`.
  const pageOptions = { query: options.defaultQuery, ...options };
  // Inside <script>, "<" must not start a tag: "</script>" in a query would end the element.
  const json = JSON.stringify(pageOptions).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <title>${title}</title>
    <link rel="icon" href="data:,">
    <link rel="stylesheet" href="/assets/graphiql/graphiql.css">
  </head>
  <body>
    <div id="graphiql">Loading GraphiQL…</div>
    <script type="application/json" id="graphiql-options">${json}</script>
    <script src="/assets/graphiql/init.js"></script>
  </body>
</html>
`;
}
