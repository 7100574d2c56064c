import pg from 'pg';
import type { PetListRow, PetRow, Store } from './store.js';

/**
 * The baseline's reads on PostgreSQL: a `pg` pool as large as the product's (10), each question a
 * named prepared statement (parsed and planned once per connection), each run counted.
 */
export function openPgStore(url: string): Store {
  const parsed = new URL(url);
  const schema = parsed.searchParams.get('schema');
  parsed.searchParams.delete('schema');
  const pool = new pg.Pool({
    connectionString: parsed.toString(),
    max: 10,
    options: schema ? `-c search_path="${schema}"` : undefined,
  });
  pool.on('error', () => {});
  let statements = 0;
  const run = async <Row extends pg.QueryResultRow>(
    name: string,
    text: string,
    values: unknown[],
  ): Promise<Row[]> => {
    statements++;
    return (await pool.query<Row>({ name, text, values })).rows;
  };
  return {
    pet: async (id) =>
      (
        await run<PetRow>(
          'pet',
          'SELECT "id", "name", "categoryId", "status" FROM "Pet" WHERE "id" = $1',
          [id],
        )
      )[0],
    petsAfter: (afterId, take) =>
      run<PetListRow>(
        'pets_after',
        `SELECT p."id", p."name", p."status", c."name" AS "categoryName", i."quantity"
           FROM "Pet" p
           JOIN "Category" c ON c."id" = p."categoryId"
           JOIN "InventoryItem" i ON i."petId" = p."id"
          WHERE p."id" > $1 ORDER BY p."id" LIMIT $2`,
        [afterId, take],
      ),
    petsPage: (limit, offset) =>
      run<PetRow>(
        'pets_page',
        'SELECT "id", "name", "categoryId", "status" FROM "Pet" ORDER BY "id" LIMIT $1 OFFSET $2',
        [limit, offset],
      ),
    petCount: async () =>
      Number((await run<{ n: string }>('pet_count', 'SELECT count(*) AS n FROM "Pet"', []))[0]?.n),
    statementCount: () => statements,
    close: () => pool.end(),
  };
}
