import Sqlite from 'better-sqlite3';

/** 64-bit integers: bigint from better-sqlite3, their decimal text from pg. */
export type Int64 = bigint | string;

export interface PetRow {
  id: Int64;
  name: string;
  categoryId: Int64;
  status: string;
}

export interface PetListRow {
  id: Int64;
  name: string;
  status: string;
  categoryName: string;
  quantity: bigint | number;
}

type Answer<T> = T | Promise<T>;

/**
 * The baseline's reads: one prepared statement per question, each run counted. SQLite answers at
 * once, PostgreSQL with a promise.
 */
export interface Store {
  pet(id: bigint): Answer<PetRow | undefined>;
  /** Up to `take` pets after an id, joined with their category and stock in one statement. */
  petsAfter(afterId: bigint, take: number): Answer<PetListRow[]>;
  petsPage(limit: number, offset: number): Answer<PetRow[]>;
  petCount(): Answer<number>;
  statementCount(): number;
  close(): Answer<void>;
}

/** The store for a DATABASE_URL: `file:<path>` (SQLite) or a PostgreSQL URL with `?schema=`. */
export async function openStore(url: string): Promise<Store> {
  if (!url.startsWith('file:')) return (await import('./pg-store.js')).openPgStore(url);
  return openSqliteStore(url.slice('file:'.length));
}

export function openSqliteStore(file: string): Store {
  const db = new Sqlite(file, { readonly: true, fileMustExist: true });
  // 64-bit ids come back as bigint, as in the product: exact beyond 2^53.
  db.defaultSafeIntegers(true);
  let statements = 0;
  const pet = db.prepare<[bigint], PetRow>(
    'SELECT id, name, categoryId, status FROM Pet WHERE id = ?',
  );
  const petsAfter = db.prepare<[bigint, number], PetListRow>(
    `SELECT p.id, p.name, p.status, c.name AS categoryName, i.quantity
       FROM Pet p
       JOIN Category c ON c.id = p.categoryId
       JOIN InventoryItem i ON i.petId = p.id
      WHERE p.id > ? ORDER BY p.id LIMIT ?`,
  );
  const petsPage = db.prepare<[number, number], PetRow>(
    'SELECT id, name, categoryId, status FROM Pet ORDER BY id LIMIT ? OFFSET ?',
  );
  const petCount = db.prepare<[], { n: bigint }>('SELECT count(*) AS n FROM Pet');
  return {
    pet: (id) => {
      statements++;
      return pet.get(id);
    },
    petsAfter: (afterId, take) => {
      statements++;
      return petsAfter.all(afterId, take);
    },
    petsPage: (limit, offset) => {
      statements++;
      return petsPage.all(limit, offset);
    },
    petCount: () => {
      statements++;
      return Number(petCount.get()?.n ?? 0);
    },
    statementCount: () => statements,
    close: () => {
      db.close();
    },
  };
}
