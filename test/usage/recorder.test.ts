import { expect, it } from 'vitest';
import { readUsageTotals } from '../../src/db/usage-counts.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { DAY_MS, dayOf, UsageRecorder } from '../../src/usage/recorder.js';
import { describeDb, useTestApp } from '../helpers/app.js';
import { parseMetrics, sampleValue } from '../helpers/metrics.js';

const web = Object.freeze({ name: 'web', version: '1' });
const ios = Object.freeze({ name: 'ios', version: '7' });

describeDb('the usage recorder', () => {
  const app = useTestApp();

  const recorder = (bufferEntries: number, retentionDays = 30) => {
    const metrics = createMetrics(app().database);
    const usage = new UsageRecorder({
      database: app().database,
      logger: app().logger,
      metrics,
      bufferEntries,
      flushIntervalMs: 3_600_000,
      retentionDays,
    });
    return { usage, metrics };
  };

  /** The stored totals of coordinates starting with `prefix`, as `coordinate client@version=count`. */
  const stored = async (prefix: string) =>
    (await readUsageTotals(app().database.prisma, 0))
      .filter((total) => total.coordinate.startsWith(prefix))
      .map((t) => `${t.coordinate} ${t.clientName}@${t.clientVersion}=${t.count}`);

  it('tallies a list per client in memory and adds it to the stored counts when it writes', async () => {
    const { usage } = recorder(100);
    const list = ['A.one', 'A.two'];
    const now = Date.now();
    for (let i = 0; i < 3; i++) usage.record('graphql', list, web, now + i);
    usage.record('graphql', list, ios, now);
    usage.recordEach('graphql', ['A.one'], web, now);
    await usage.flush();
    usage.record('graphql', list, web, now + 10);
    await usage.close();
    expect((await stored('A.')).sort()).toEqual([
      'A.one ios@7=1',
      'A.one web@1=5',
      'A.two ios@7=1',
      'A.two web@1=4',
    ]);
    const [total] = await readUsageTotals(app().database.prisma, 0, 'A.two');
    expect(total).toMatchObject({ clientName: 'ios', firstSeen: now, lastSeen: now });
  });

  it('holds at most USAGE_BUFFER_ENTRIES tallies: past them a use is dropped and counted', async () => {
    const { usage, metrics } = recorder(2);
    const [one, two, three] = [['B.one'], ['B.two'], ['B.three']];
    usage.record('graphql', one as string[], web);
    usage.record('graphql', two as string[], web);
    usage.record('graphql', three as string[], web);
    // A tally already held still counts.
    usage.record('graphql', one as string[], web);
    const dropped = sampleValue(
      parseMetrics(await metrics.registry.metrics()),
      'petstore_usage_dropped_total',
    );
    expect(dropped).toBe(1);
    await usage.close();
    expect((await stored('B.')).sort()).toEqual(['B.one web@1=2', 'B.two web@1=1']);
  });

  it('keeps each day apart, and forgets the days past the retention', async () => {
    const { usage } = recorder(100, 2);
    const now = Date.now();
    await app().database.prisma.usageCount.create({
      data: {
        day: dayOf(now) - 5,
        api: 'rest',
        coordinate: 'C.old',
        clientName: 'web',
        clientVersion: '1',
        count: 1n,
        firstSeen: BigInt(now - 5 * DAY_MS),
        lastSeen: BigInt(now - 5 * DAY_MS),
      },
    });
    usage.record('rest', ['C.day'], web, now - DAY_MS);
    usage.record('rest', ['C.day'], web, now);
    await usage.close();
    const days = await app().database.prisma.usageCount.findMany({
      where: { coordinate: { startsWith: 'C.' } },
      orderBy: { day: 'asc' },
    });
    expect(days.map((row) => [row.coordinate, row.day - dayOf(now), Number(row.count)])).toEqual([
      ['C.day', -1, 1],
      ['C.day', 0, 1],
    ]);
  });
});
