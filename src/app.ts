import { Hono } from 'hono';
import type { Config } from './config.js';
import { type Database, openDatabase } from './db/client.js';
import { migrate } from './db/migrate.js';
import { seedSampleData } from './db/seed.js';
import { anonymous, type Viewer } from './domain/context.js';
import { errorStatus } from './domain/errors.js';
import { createGraphQLHandler } from './graphql/yoga.js';
import { docsRoutes } from './http/docs.js';
import { graphiqlAssets } from './http/graphiql.js';
import { createLogger, type Logger } from './logger.js';
import { type AccessLogFields, accessLog } from './observability/access-log.js';
import { healthRoutes } from './observability/health.js';
import { httpMetrics } from './observability/http-metrics.js';
import { createMetrics } from './observability/metrics.js';
import { metricsRoutes } from './observability/metrics-route.js';

/** Per-request values that app-level middleware hands to the edges (GraphQL and REST). */
export interface AppEnv {
  Variables: {
    requestId: string;
    /** The caller, from the request's bearer token; anonymous without one. */
    viewer: Viewer;
    /** Fields an edge adds to the request's access log line. */
    accessLog: AccessLogFields;
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

  const metrics = createMetrics(database);
  const graphql = createGraphQLHandler({ database, logger, metrics });
  const app = new Hono<AppEnv>();
  // First, so that they see every request, including those of routes mounted later.
  app.use(accessLog(logger), httpMetrics(metrics));
  app.use(async (c, next) => {
    c.set('viewer', anonymous);
    await next();
  });
  app.route('/', healthRoutes(database, logger));
  app.route('/', metricsRoutes(metrics));
  app.route('/', docsRoutes);
  app.route('/', graphiqlAssets);
  app.on(['GET', 'POST', 'OPTIONS'], '/graphql', (c) =>
    graphql.fetch(c.req.raw, {
      requestId: c.get('requestId'),
      viewer: c.get('viewer'),
      accessLog: c.get('accessLog'),
    }),
  );
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
