import type { Order } from '../generated/sqlite/client.js';
import type { SqlDialect } from './client.js';
import type { Tx } from './transaction.js';

/**
 * What placing an order did: the order when it was placed (and whether it took the last unit,
 * which made the pet sold); otherwise the pet's status (undefined: no such pet).
 */
export interface Placed {
  order?: Order | undefined;
  soldOut?: boolean;
  status?: string | undefined;
}

/**
 * Places an order with as few statements as the database allows, in the transaction `tx`: the
 * order is written only while the pet is available and its stock covers the quantity, the stock
 * is taken by a conditional update (so concurrent orders queue on the row and never oversell), and
 * taking the last unit marks the pet sold. The inventory item's version is bumped, and the pet's
 * when it is marked sold (the item shows the pet's status; its version is bumped anyway). The
 * caller decides what a refusal means.
 *
 * Prisma cannot express a conditional write that reports what it did, so this is raw SQL: on
 * PostgreSQL one statement (the pet row locked, then the stock, the status and the order in
 * data-modifying CTEs); on SQLite, which has no such CTEs and runs one writer at a time, the order
 * then the stock (and the status after the last unit).
 */
export function insertOrderTakingStock(
  tx: Tx,
  dialect: SqlDialect,
  petId: bigint,
  quantity: number,
  shipDate: Date | null,
): Promise<Placed> {
  return dialect === 'postgresql'
    ? placeOrderPostgres(tx, petId, quantity, shipDate)
    : placeOrderSqlite(tx, petId, quantity, shipDate);
}

/**
 * An order row as raw SQL returns it (types differ between the drivers). SQLite's statement reads
 * the ids as text: its driver would hand them over as doubles, rounded above 2^53.
 */
interface OrderRow {
  id: bigint | string;
  petId: bigint | string;
  quantity: bigint | number;
  shipDate: Date | string | null;
  complete: boolean | number | bigint;
  version: bigint | number;
}

async function placeOrderPostgres(
  db: Tx,
  petId: bigint,
  quantity: number,
  shipDate: Date | null,
): Promise<Placed> {
  // The pet row is locked first (FOR NO KEY UPDATE still lets orders reference it), so an order
  // that waited for another reads the status that one left: after the last unit, `sold`.
  const rows = await db.$queryRaw<(Partial<OrderRow> & { status: string; left: number | null })[]>`
    WITH pet AS (
      SELECT "id", "status" FROM "Pet" WHERE "id" = ${petId} FOR NO KEY UPDATE
    ), taken AS (
      UPDATE "InventoryItem" AS stock
         SET "quantity" = stock."quantity" - ${quantity}::integer, "version" = stock."version" + 1
        FROM pet
       WHERE stock."petId" = pet."id" AND pet."status" = 'available'
         AND stock."quantity" >= ${quantity}::integer
      RETURNING stock."quantity"
    ), sold AS (
      UPDATE "Pet" SET "status" = 'sold', "version" = "Pet"."version" + 1 FROM taken
       WHERE "Pet"."id" = ${petId} AND taken."quantity" = 0
      RETURNING "Pet"."id"
    ), placed AS (
      INSERT INTO "Order" ("petId", "quantity", "shipDate")
      SELECT ${petId}, ${quantity}::integer, ${shipDate?.toISOString() ?? null}::timestamp(3)
        FROM taken
      RETURNING "id", "petId", "quantity", "shipDate", "complete", "version"
    )
    SELECT pet."status"::text AS "status", (SELECT "quantity" FROM taken) AS "left", placed.*
      FROM pet LEFT JOIN placed ON true`;
  const [row] = rows;
  if (!row) return {};
  if (row.id == null) return { status: row.status };
  return { order: toOrder(row as OrderRow), soldOut: Number(row.left) === 0 };
}

async function placeOrderSqlite(
  db: Tx,
  petId: bigint,
  quantity: number,
  shipDate: Date | null,
): Promise<Placed> {
  // One writer at a time: from its first write on, the transaction sees the latest state alone.
  const [order] = await db.$queryRaw<OrderRow[]>`
    INSERT INTO "Order" ("petId", "quantity", "shipDate", "complete")
    SELECT ${petId}, ${quantity}, ${shipDate ? sqliteDateTime(shipDate) : null}, false
     WHERE EXISTS (SELECT 1 FROM "Pet" WHERE "id" = ${petId} AND "status" = 'available')
       AND EXISTS (SELECT 1 FROM "InventoryItem"
                    WHERE "petId" = ${petId} AND "quantity" >= ${quantity})
    RETURNING CAST("id" AS TEXT) AS "id", CAST("petId" AS TEXT) AS "petId", "quantity", "shipDate", "complete", "version"`;
  if (!order) {
    // Refused: the reason (only the error's code depends on it).
    const pet = await db.pet.findUnique({ where: { id: petId }, select: { status: true } });
    return { status: pet?.status };
  }
  const [stock] = await db.$queryRaw<{ quantity: bigint | number }[]>`
    UPDATE "InventoryItem" SET "quantity" = "quantity" - ${quantity}, "version" = "version" + 1
     WHERE "petId" = ${petId}
    RETURNING "quantity"`;
  const soldOut = Number(stock?.quantity) === 0;
  if (soldOut)
    await db.pet.update({
      where: { id: petId },
      data: { status: 'sold', version: { increment: 1 } },
    });
  return { order: toOrder(order), soldOut };
}

/** DateTime as Prisma's SQLite adapter writes it (ISO 8601 with an explicit offset). */
function sqliteDateTime(date: Date): string {
  return date.toISOString().replace('Z', '+00:00');
}

function toOrder(row: OrderRow): Order {
  return {
    id: BigInt(row.id),
    petId: BigInt(row.petId),
    quantity: Number(row.quantity),
    shipDate: row.shipDate == null ? null : new Date(row.shipDate),
    complete: Boolean(row.complete),
    version: Number(row.version),
  };
}
