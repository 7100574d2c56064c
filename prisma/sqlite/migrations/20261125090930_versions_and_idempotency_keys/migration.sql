-- Edited by hand: the generated script rebuilt every table to add a column, which would have
-- dropped the INTEGER PRIMARY KEY AUTOINCREMENT declarations of the first migration (see there).
-- SQLite adds a NOT NULL column with a constant default in place.

-- AlterTable
ALTER TABLE "Category" ADD COLUMN "version" INTEGER NOT NULL DEFAULT 1;

-- AlterTable
ALTER TABLE "Pet" ADD COLUMN "version" INTEGER NOT NULL DEFAULT 1;

-- AlterTable
ALTER TABLE "InventoryItem" ADD COLUMN "version" INTEGER NOT NULL DEFAULT 1;

-- AlterTable
ALTER TABLE "Order" ADD COLUMN "version" INTEGER NOT NULL DEFAULT 1;

-- CreateTable
CREATE TABLE "IdempotencyKey" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "fingerprint" TEXT NOT NULL,
    "owner" TEXT,
    "leaseUntil" BIGINT,
    "status" INTEGER,
    "headers" TEXT,
    "body" TEXT,
    "expiresAt" BIGINT NOT NULL
);

-- CreateIndex
CREATE INDEX "IdempotencyKey_expiresAt_idx" ON "IdempotencyKey"("expiresAt");
