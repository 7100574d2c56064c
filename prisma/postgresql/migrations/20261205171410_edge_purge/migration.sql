-- CreateTable
CREATE TABLE "EdgePurge" (
    "id" INTEGER NOT NULL,
    "lastEventId" BIGINT NOT NULL,
    "owner" INTEGER NOT NULL,
    "leaseUntil" BIGINT NOT NULL,

    CONSTRAINT "EdgePurge_pkey" PRIMARY KEY ("id")
);
