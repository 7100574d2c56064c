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
  app.logger.info(
    { token },
    'development mode: a secret was generated in ./data/; this all-scopes token is valid for 7 days (send it as "Authorization: Bearer <token>"; `npm run token -- <scopes>` mints more)',
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
