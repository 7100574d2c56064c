-- CreateTable
CREATE TABLE "EdgePurge" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "lastEventId" BIGINT NOT NULL,
    "owner" INTEGER NOT NULL,
    "leaseUntil" BIGINT NOT NULL
);
