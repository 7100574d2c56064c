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
