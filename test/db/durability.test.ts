import { expect, it } from 'vitest';
import { database, describeDb, useTestApp } from '../helpers/app.js';

describeDb('the embedded database', () => {
  const app = useTestApp();

  it.skipIf(database !== 'sqlite')(
    'runs in WAL mode with synchronous=NORMAL (a crash loses nothing, a power loss the last commits)',
    async () => {
      const [journal] =
        await app().database.prisma.$queryRawUnsafe<{ journal_mode: string }[]>(
          'PRAGMA journal_mode',
        );
      const [sync] =
        await app().database.prisma.$queryRawUnsafe<{ synchronous: bigint }[]>(
          'PRAGMA synchronous',
        );
      // synchronous: 0 OFF, 1 NORMAL, 2 FULL.
      expect({ journal: journal?.journal_mode, synchronous: Number(sync?.synchronous) }).toEqual({
        journal: 'wal',
        synchronous: 1,
      });
    },
  );
});
