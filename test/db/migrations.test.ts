import { readdirSync, readFileSync } from 'node:fs';
import { expect, it } from 'vitest';

const prisma = new URL('../../prisma/', import.meta.url);

it.each(['sqlite', 'postgresql'])(
  'the latest %s migration was made from the current models (run `npm run db:migration -- <name>`)',
  (variant) => {
    const migrations = new URL(`${variant}/migrations/`, prisma);
    const latest = readdirSync(migrations, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort()
      .at(-1);
    expect(latest).toBeDefined();
    const snapshot = readFileSync(new URL(`${latest}/models.snapshot`, migrations), 'utf8');
    expect(snapshot).toBe(readFileSync(new URL('models.prisma', prisma), 'utf8'));
  },
);
