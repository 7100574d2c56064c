-- Edited by hand: SQLite only allocates ids for a column declared exactly INTEGER PRIMARY KEY, so
-- the BigInt ids are declared that way (still 64-bit). AUTOINCREMENT keeps deleted ids from being
-- reused, as PostgreSQL's sequences do.

-- CreateTable
CREATE TABLE "Category" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "name" TEXT NOT NULL,
    "nameKey" TEXT NOT NULL,
    "description" TEXT
);

-- CreateTable
CREATE TABLE "Pet" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "name" TEXT NOT NULL,
    "categoryId" BIGINT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'available',
    CONSTRAINT "Pet_categoryId_fkey" FOREIGN KEY ("categoryId") REFERENCES "Category" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "InventoryItem" (
    "petId" BIGINT NOT NULL PRIMARY KEY,
    "quantity" INTEGER NOT NULL DEFAULT 0,
    CONSTRAINT "InventoryItem_petId_fkey" FOREIGN KEY ("petId") REFERENCES "Pet" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Order" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "petId" BIGINT NOT NULL,
    "quantity" INTEGER NOT NULL,
    "shipDate" DATETIME,
    "complete" BOOLEAN NOT NULL DEFAULT false,
    CONSTRAINT "Order_petId_fkey" FOREIGN KEY ("petId") REFERENCES "Pet" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "Category_nameKey_key" ON "Category"("nameKey");

-- CreateIndex
CREATE INDEX "Pet_categoryId_id_idx" ON "Pet"("categoryId", "id");

-- CreateIndex
CREATE INDEX "Pet_status_id_idx" ON "Pet"("status", "id");

-- CreateIndex
CREATE INDEX "Order_petId_id_idx" ON "Order"("petId", "id");

-- CreateIndex
CREATE INDEX "Order_complete_id_idx" ON "Order"("complete", "id");
