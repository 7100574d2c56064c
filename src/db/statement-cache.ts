import type { ColumnDefinition, Database as Sqlite, Statement } from 'better-sqlite3';

/**
 * Prisma's SQLite adapter compiles every statement it runs anew (`prepare`: about a tenth of an
 * order's CPU, a few percent of a read's) and binds that run's arguments to it for good. This
 * keeps the `max` most recently used statements of `client` compiled, and hands the adapter for
 * each run a view of one bound to that run's arguments. A statement runs to its end synchronously
 * (better-sqlite3 has no other mode), so a compiled one is never in use twice at once.
 *
 * The view has what the adapter calls (`run` unbound, for BEGIN; `bind`, then `reader`, `run`,
 * `columns` and `raw().all`); the adapter's version is pinned, and every query of the suite goes
 * through here on SQLite. Each distinct SQL text is one entry, so the bound is a count: Prisma's
 * texts vary with the shape of a query and the length of an `IN` list, never with a value.
 */
export function cacheStatements(client: Sqlite, max: number): void {
  const compile = client.prepare.bind(client);
  const kept = new Map<string, Compiled>();
  const compiledFor = (sql: string): Compiled => {
    const found = kept.get(sql);
    if (found) {
      // Least recently used out: a hit moves to the back.
      kept.delete(sql);
      kept.set(sql, found);
      return found;
    }
    const compiled: Compiled = { statement: compile(sql), columns: undefined };
    kept.set(sql, compiled);
    if (kept.size > max) kept.delete(kept.keys().next().value as string);
    return compiled;
  };
  const bound = (compiled: Compiled, args: unknown[]) => {
    const { statement } = compiled;
    return {
      reader: statement.reader,
      run: () => statement.run(args),
      // What a compiled statement returns stays as it is: asked once (a native call that builds an
      // object per column), not at every run. The schema does not change while the app serves.
      columns: () => {
        compiled.columns ??= statement.columns();
        return compiled.columns;
      },
      raw: () => ({ all: () => statement.raw(true).all(args) }),
    };
  };
  client.prepare = ((sql: string) => {
    const compiled = compiledFor(sql);
    return {
      run: () => compiled.statement.run(),
      bind: (args: unknown[]) => bound(compiled, args),
    };
  }) as unknown as Sqlite['prepare'];
}

/** A statement kept compiled, with the columns it returns once they have been asked for. */
interface Compiled {
  statement: Statement;
  columns: ColumnDefinition[] | undefined;
}

/**
 * Names for PostgreSQL's prepared statements (the pg adapter's `statementNameGenerator`): `pg`
 * parses a named statement once per connection and from then on sends only its arguments, so the
 * server neither parses nor plans it again. The first `max` distinct SQL texts with arguments get
 * a name, and any text after them runs unnamed, as every text did before: `pg` keeps a connection's
 * prepared statements for as long as it lives, so `max` bounds each connection's. The texts a
 * process runs most are among its first (the same reads and writes, request after request). A
 * statement without arguments (BEGIN, COMMIT) stays a simple query.
 */
export function statementNames(max: number): (query: { sql: string; args: unknown[] }) => string {
  const names = new Map<string, string>();
  return ({ sql, args }) => {
    if (args.length === 0) return '';
    let name = names.get(sql);
    if (name === undefined && names.size < max) {
      name = `petstore_${names.size}`;
      names.set(sql, name);
    }
    // An empty name is pg's unnamed statement.
    return name ?? '';
  };
}
