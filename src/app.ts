import { Hono } from 'hono';
import type { Config } from './config.js';
import { type Database, openDatabase } from './db/client.js';
import { migrate } from './db/migrate.js';
import { seedSampleData } from './db/seed.js';
import { anonymous, type Viewer } from './domain/context.js';
import { errorStatus } from './domain/errors.js';
import { graphqlErrorResponse } from './graphql/http-errors.js';
import { createGraphQLHandler } from './graphql/yoga.js';
import { bodyTooLargeMessage, limitBody } from './http/body-limit.js';
import { createLogger, type Logger } from './logger.js';
import { createRestApi, REST_BASE_PATH } from './rest/api.js';

/** Per-request values that app-level middleware hands to the edges (GraphQL and REST). */
export interface AppEnv {
  Variables: {
    requestId: string;
    /** The caller, from the request's bearer token; anonymous without one. */
    viewer: Viewer;
  };
}

export interface App {
  /** The one fetch handler: /graphql, /api and health. */
  fetch(request: Request): Promise<Response>;
  readonly config: Config;
  readonly database: Database;
  readonly logger: Logger;
  close(): Promise<void>;
}

export interface AppOptions {
  logger?: Logger;
}

/** Opens and migrates the database (seeding an empty one when configured) and builds the handler. */
export async function createApp(config: Config, options: AppOptions = {}): Promise<App> {
  const logger = options.logger ?? createLogger(config.logLevel);
  await migrate(config.database);
  const database = openDatabase(config.database);
  if (config.seed && (await seedSampleData(database.prisma))) logger.info('loaded the sample data');

  const graphql = createGraphQLHandler({ database, logger });
  const app = new Hono<AppEnv>();
  app.use(async (c, next) => {
    c.set('requestId', crypto.randomUUID());
    c.set('viewer', anonymous);
    await next();
  });
  app.use(
    '/graphql',
    limitBody((c) => graphqlErrorResponse(c, 'PAYLOAD_TOO_LARGE', bodyTooLargeMessage)),
  );
  app.on(['GET', 'POST', 'OPTIONS'], '/graphql', (c) =>
    graphql.fetch(c.req.raw, { requestId: c.get('requestId'), viewer: c.get('viewer') }),
  );
  app.all('/graphql', (c) =>
    graphqlErrorResponse(c, 'METHOD_NOT_ALLOWED', `${c.req.method} is not allowed on /graphql`, {
      allow: 'GET, POST, OPTIONS',
    }),
  );
  app.route(REST_BASE_PATH, createRestApi({ database, config, logger }));
  app.notFound((c) =>
    c.json(
      {
        code: 'NOT_FOUND',
        message: `No route ${c.req.method} ${c.req.path}`,
        status: errorStatus.NOT_FOUND,
      },
      404,
    ),
  );

  return {
    fetch: async (request) => app.fetch(request),
    config,
    database,
    logger,
    close: () => database.close(),
  };
}
