import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { parseCommand } from './cli.js';

const root = fileURLToPath(new URL('..', import.meta.url));
/** Where `npm start` runs from: src/ compiled file by file (git-ignored). */
export const distDir = join(root, 'dist');

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

/**
 * Compiles src/ to dist/ with esbuild, one JavaScript file per TypeScript file (no bundling), so
 * every path resolved with `import.meta.url` (the prisma/ folder, node_modules assets) stays valid
 * and the browser scripts in src/http/public/ are copied beside the code that serves them.
 * Type checking is `npm run typecheck`'s job.
 *
 * Servers may be starting from dist/ while it runs (the tests build, and so does `npm start`): a
 * file is replaced only when its content changed, in one rename, and files no source produces any
 * more are removed. Returns the paths written.
 */
export async function build(): Promise<string[]> {
  const self = fileURLToPath(import.meta.url);
  // This file is the build tool, not part of what `npm start` runs.
  const sources = (await filesUnder(join(root, 'src'))).filter((file) => file !== self);
  const result = await esbuild.build({
    entryPoints: sources.filter((file) => /\.(ts|js)$/.test(file) && !file.endsWith('.d.ts')),
    outdir: distDir,
    outbase: join(root, 'src'),
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // The browser scripts are served as they are.
    loader: { '.js': 'copy' },
    logLevel: 'warning',
    write: false,
  });
  const outputs = new Set(result.outputFiles.map((file) => file.path));
  const changed = await Promise.all(
    result.outputFiles.map(async ({ path, contents }) => {
      const current = await readFile(path).catch(() => undefined);
      if (current?.equals(contents)) return undefined;
      await mkdir(dirname(path), { recursive: true });
      const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
      await writeFile(temporary, contents);
      await rename(temporary, path);
      return relative(root, path);
    }),
  );
  // Another build's files in flight (`.tmp`) are its own to rename.
  const stale = (await filesUnder(distDir).catch(() => [])).filter(
    (file) => !outputs.has(file) && !file.endsWith('.tmp'),
  );
  await Promise.all(stale.map((file) => rm(file, { force: true })));
  return changed.filter((file) => file !== undefined);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  parseCommand({
    name: 'npm run build',
    synopsis: '',
    help: `Compiles src/ to dist/ with esbuild, one JavaScript file per TypeScript file, rewriting only the
files whose output changed; npm start runs it first. It does not check types: npm run typecheck.`,
  });
  const written = await build();
  if (written.length > 0) process.stderr.write(`dist/: ${written.length} files compiled\n`);
}
