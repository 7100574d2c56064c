-- CreateEnum
CREATE TYPE "PetStatus" AS ENUM ('available', 'pending', 'sold');

-- CreateTable
CREATE TABLE "Category" (
    "id" BIGSERIAL NOT NULL,
    "name" TEXT NOT NULL,
    "nameKey" TEXT NOT NULL,
    "description" TEXT,

    CONSTRAINT "Category_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Pet" (
    "id" BIGSERIAL NOT NULL,
    "name" TEXT NOT NULL,
    "categoryId" BIGINT NOT NULL,
    "status" "PetStatus" NOT NULL DEFAULT 'available',

    CONSTRAINT "Pet_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "InventoryItem" (
    "petId" BIGINT NOT NULL,
    "quantity" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "InventoryItem_pkey" PRIMARY KEY ("petId")
);

-- CreateTable
CREATE TABLE "Order" (
    "id" BIGSERIAL NOT NULL,
    "petId" BIGINT NOT NULL,
    "quantity" INTEGER NOT NULL,
    "shipDate" TIMESTAMP(3),
    "complete" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "Order_pkey" PRIMARY KEY ("id")
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

-- AddForeignKey
ALTER TABLE "Pet" ADD CONSTRAINT "Pet_categoryId_fkey" FOREIGN KEY ("categoryId") REFERENCES "Category"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "InventoryItem" ADD CONSTRAINT "InventoryItem_petId_fkey" FOREIGN KEY ("petId") REFERENCES "Pet"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Order" ADD CONSTRAINT "Order_petId_fkey" FOREIGN KEY ("petId") REFERENCES "Pet"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
