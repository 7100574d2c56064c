/**
 * The SQL dialect behind a Prisma client, for the few statements Prisma cannot express (a
 * conditional write that returns what it changed). The database layer registers each client it
 * opens; the domain only asks.
 */
export type SqlDialect = 'sqlite' | 'postgresql';

const dialects = new WeakMap<object, SqlDialect>();

export function registerDialect(client: object, dialect: SqlDialect): void {
  dialects.set(client, dialect);
}

export function dialectOf(client: object): SqlDialect {
  const dialect = dialects.get(client);
  if (!dialect) throw new Error('this Prisma client was not opened by openDatabase');
  return dialect;
}
