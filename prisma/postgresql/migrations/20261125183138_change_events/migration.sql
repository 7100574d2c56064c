-- CreateTable
CREATE TABLE "ChangeEvent" (
    "id" BIGINT NOT NULL,
    "entity" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "entityId" BIGINT NOT NULL,
    "petId" BIGINT,
    "origin" INTEGER NOT NULL,
    "cause" TEXT,
    "createdAt" BIGINT NOT NULL,

    CONSTRAINT "ChangeEvent_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ChangeEventSequence" (
    "id" INTEGER NOT NULL,
    "last" BIGINT NOT NULL,

    CONSTRAINT "ChangeEventSequence_pkey" PRIMARY KEY ("id")
);

-- Edited by hand: the counter's one row (src/db/change-events.ts).
INSERT INTO "ChangeEventSequence" ("id", "last") VALUES (1, 0);
