-- Edited by hand: event ids are allocated by SQLite itself (a column declared exactly INTEGER
-- PRIMARY KEY, still 64-bit). With one writer at a time they follow the commit order, and
-- AUTOINCREMENT never hands out an id again once its event has been removed, so a subscriber's
-- cursor always names one event. ChangeEventSequence is PostgreSQL's counter; the table is here
-- only to keep both databases on the same models.

-- CreateTable
CREATE TABLE "ChangeEvent" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "entity" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "entityId" BIGINT NOT NULL,
    "petId" BIGINT,
    "origin" INTEGER NOT NULL,
    "cause" TEXT,
    "createdAt" BIGINT NOT NULL
);

-- CreateTable
CREATE TABLE "ChangeEventSequence" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "last" BIGINT NOT NULL
);
