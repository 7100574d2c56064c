/** `npm run generate`: the Prisma clients and Pothos types of both databases (src/generated/). */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { fail, parseCommand } from '../cli.js';

const command = {
  name: 'npm run generate',
  synopsis: '',
  help: `Generates the Prisma clients and the Pothos types (src/generated/) from prisma/, for SQLite and
for PostgreSQL; npm install runs it. Run it after changing prisma/models.prisma. Nothing is
downloaded: Prisma's schema engine binary is not needed to generate.`,
};
parseCommand(command);

const prisma = createRequire(import.meta.url).resolve('prisma/build/index.js');
const root = fileURLToPath(new URL('../..', import.meta.url));
for (const variant of ['sqlite', 'postgresql']) {
  const { status, error } = spawnSync(
    process.execPath,
    [prisma, 'generate', '--schema', `prisma/${variant}`],
    // Without an engine binary to run, Prisma would try to download one; generating needs none.
    {
      cwd: root,
      stdio: 'inherit',
      env: { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: '/bin/false' },
    },
  );
  if (error || status !== 0)
    fail(command, error ?? new Error(`prisma generate (${variant}) failed`));
}
