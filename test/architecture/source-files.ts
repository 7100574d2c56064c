import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The source folder the structure rules look at. */
export const src = fileURLToPath(new URL('../../src/', import.meta.url));

/** Every TypeScript file under `dir`, the generated clients left out. */
export function sourceFiles(dir = src): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}
