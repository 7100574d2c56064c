-- CreateTable
CREATE TABLE "CacheFence" (
    "id" INTEGER NOT NULL,
    "epoch" BIGINT NOT NULL,

    CONSTRAINT "CacheFence_pkey" PRIMARY KEY ("id")
);
