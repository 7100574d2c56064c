import { expect, it } from 'vitest';
import { describeDb } from '../helpers/app.js';
import { childDatabase, runNode, tsx } from '../helpers/process.js';

const seed = (databaseUrl: string, args: string[]) =>
  runNode([tsx, 'src/db/seed-cli.ts', ...args], { DATABASE_URL: databaseUrl });

describeDb('npm run db:seed -- --pets N', { timeout: 60_000 }, () => {
  it('loads the sample data, tops the pets up with a progress bar on stderr, and is idempotent', async () => {
    const database = childDatabase();
    try {
      const first = await seed(database.url, ['--pets', '3000']);
      expect(first.code).toBe(0);
      expect(first.stdout).toMatch(
        /Loaded the sample data\.\nAdded \d+ pets; the database now holds 3000\.\n$/,
      );
      expect(first.stderr).toMatch(/^pets \[#{30}\] 100% [\d,]+\/[\d,]+ /m);

      const second = await seed(database.url, ['--pets', '3000']);
      expect(second).toEqual({
        code: 0,
        stdout:
          'The database already has data; no sample data loaded.\n' +
          'The database already holds at least 3000 pets; none added.\n',
        stderr: '',
      });
    } finally {
      await database.drop();
    }
  });

  it('rejects a --pets that is not a whole number from 1 on, before opening the database', async () => {
    const results = await Promise.all(
      ['abc', '0', '1.5'].map((value) =>
        seed('file:/nonexistent/never-opened.db', [`--pets=${value}`]),
      ),
    );
    for (const result of results) {
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('--pets must be a whole number from 1 to 10000000');
    }
  });
});
