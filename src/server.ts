import { serve } from '@hono/node-server';
import { createApp } from './app.js';
import { mintToken } from './auth/tokens.js';
import { ConfigError, loadConfig, loadDotEnv } from './config.js';
import { scopes } from './domain/authorization.js';

loadDotEnv();
let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig();
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(error.message);
  process.exit(1);
}

const app = await createApp(config);
if (app.devSecret) {
  const token = await mintToken(app.devSecret, {
    scopes,
    subject: 'developer',
    expiresIn: 7 * 86400,
  });
  app.logger.warn('development mode: no AUTH_JWT_SECRET, using a generated secret kept in ./data/');
  // Printed for the developer at the console, never logged: logs redact tokens.
  process.stderr.write(
    `\nAll-scopes development token (7 days; \`npm run token -- <scopes>\` mints more):\n${token}\n` +
      'In GraphiQL, add it under Headers as {"Authorization": "Bearer <token>"}.\n\n',
  );
}
const server = serve({ fetch: app.fetch, port: config.port, hostname: config.host }, (address) => {
  const url = `http://${config.host}:${address.port}`;
  app.logger.info({ url, database: config.database.provider }, `serving GraphQL on ${url}/graphql`);
});

let stopping = false;
function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  app.logger.info({ signal }, 'shutting down');
  server.close(async () => {
    await app.close();
    process.exit(0);
  });
}
process.on('SIGTERM', () => shutdown('SIGTERM'));
process.on('SIGINT', () => shutdown('SIGINT'));
