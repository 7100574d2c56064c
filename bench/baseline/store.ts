import Sqlite from 'better-sqlite3';

export interface PetRow {
  id: bigint;
  name: string;
  categoryId: bigint;
  status: string;
}

export interface PetListRow {
  id: bigint;
  name: string;
  status: string;
  categoryName: string;
  quantity: bigint;
}

/** The baseline's reads: one prepared statement per question, each run counted. */
export interface Store {
  pet(id: bigint): PetRow | undefined;
  /** Up to `take` pets after an id, joined with their category and stock in one statement. */
  petsAfter(afterId: bigint, take: number): PetListRow[];
  petsPage(limit: number, offset: number): PetRow[];
  petCount(): number;
  statementCount(): number;
  close(): void;
}

export function openStore(file: string): Store {
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
    close: () => db.close(),
  };
}
