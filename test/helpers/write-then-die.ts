/**
 * A writer that dies right after its write has committed, before it could publish it: it places
 * one unit of PET_ID on the database of DATABASE_URL, and its change feed's `publish` (called once
 * the transaction has committed) kills the process with SIGKILL. What it wrote must still reach
 * subscribers on other processes (test/server/crash-events.test.ts).
 */
import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import type { DomainContext } from '../../src/domain/context.js';
import { placeOrder } from '../../src/orders/rules.js';

const app = await createApp(loadConfig({ ...process.env, SEED: 'false', LOG_LEVEL: 'silent' }));
const ctx: DomainContext = {
  db: app.database.prisma,
  sql: app.database,
  dialect: app.database.dialect,
  viewer: { authenticated: true, subject: 'doomed-writer', scopes: new Set(['orders:write']) },
  changes: {
    ...app.changes,
    publish: async () => {
      process.kill(process.pid, 'SIGKILL');
      await new Promise(() => {});
    },
  },
};
await placeOrder(ctx, { petId: process.env.PET_ID, quantity: 1 });
throw new Error('still alive after the commit');
