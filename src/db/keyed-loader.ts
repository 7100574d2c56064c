import DataLoader from 'dataloader';

/**
 * A DataLoader of rows by key: each batch is one read of the distinct keys asked for, and a key
 * that names no row loads as null. `options` says how long what was read is kept and when a batch
 * is sent.
 */
export function keyedLoader<Row>(
  read: (keys: readonly bigint[]) => Promise<Row[]>,
  keyOf: (row: Row) => bigint,
  options: DataLoader.Options<bigint, Row | null> = {},
): DataLoader<bigint, Row | null> {
  return new DataLoader(async (keys) => {
    const rows = new Map((await read([...new Set(keys)])).map((row) => [keyOf(row), row]));
    return keys.map((key) => rows.get(key) ?? null);
  }, options);
}
