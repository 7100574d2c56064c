-- CreateTable
CREATE TABLE "UsageCount" (
    "day" INTEGER NOT NULL,
    "api" TEXT NOT NULL,
    "coordinate" TEXT NOT NULL,
    "clientName" TEXT NOT NULL,
    "clientVersion" TEXT NOT NULL,
    "count" BIGINT NOT NULL,
    "firstSeen" BIGINT NOT NULL,
    "lastSeen" BIGINT NOT NULL,

    CONSTRAINT "UsageCount_pkey" PRIMARY KEY ("day","api","coordinate","clientName","clientVersion")
);

-- CreateIndex
CREATE INDEX "UsageCount_coordinate_day_idx" ON "UsageCount"("coordinate", "day");
