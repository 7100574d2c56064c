import { accessSync, constants, mkdirSync, type Stats, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ConfigError } from '../config.js';

const statOf = (path: string): Stats | undefined => {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
};

const codeOf = (error: unknown) => (error as { code?: string }).code ?? String(error);

/**
 * Checks that the SQLite file DATABASE_URL names can be written, making its missing directories:
 * a path that cannot work is one ConfigError saying what to do, instead of the schema engine's
 * "External error id#0". Each directory is made on its own: Node's recursive mkdir never returns
 * under /proc (it retries the parent forever).
 */
export function prepareSqliteFile(file: string): void {
  if (file === ':memory:') return;
  const named = `DATABASE_URL names ${file}`;
  if (statOf(file)?.isDirectory()) {
    throw new ConfigError(
      `${named}, which is a directory: name a file in it, e.g. file:${join(file, 'petstore.db')}`,
    );
  }
  const missing: string[] = [];
  let directory = dirname(file);
  for (let found = statOf(directory); !found; found = statOf(directory)) {
    missing.unshift(directory);
    if (dirname(directory) === directory) break;
    directory = dirname(directory);
  }
  if (statOf(directory) && !statOf(directory)?.isDirectory()) {
    throw new ConfigError(
      `${named}, but ${directory} is a file, not a directory: name another path`,
    );
  }
  for (const path of missing) {
    try {
      mkdirSync(path);
    } catch (error) {
      throw new ConfigError(
        `${named}, but the directory ${path} cannot be created (${codeOf(error)}): name a path ` +
          'this user can write to, e.g. file:./data/petstore.db',
      );
    }
  }
  try {
    // SQLite writes its -wal and -shm files beside the database.
    accessSync(dirname(file), constants.W_OK);
    if (statOf(file)) accessSync(file, constants.R_OK | constants.W_OK);
  } catch (error) {
    throw new ConfigError(
      `${named}, which this user cannot write (${codeOf(error)}): fix the permissions, or name ` +
        'another path',
    );
  }
}
