import { expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { migrate } from '../../src/db/migrate.js';
import { describeDb } from '../helpers/app.js';
import { childDatabase } from '../helpers/process.js';

const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;

describeDb('migrating', () => {
  it('leaves no timer of the schema engine behind', async () => {
    const db = childDatabase();
    try {
      const config = loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'silent' }).database;
      const before = timers();
      expect(await migrate(config)).not.toEqual([]);
      // A second run finds nothing to apply: the engine is loaded afresh after being released.
      expect(await migrate(config)).toEqual([]);
      expect(timers()).toBeLessThanOrEqual(before);
    } finally {
      await db.drop();
    }
  });
});
