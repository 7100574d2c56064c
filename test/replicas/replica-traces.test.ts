import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { database, databaseAvailable } from '../helpers/app.js';
import {
  eventOf,
  events,
  firstEvent,
  liveSecret,
  liveToken,
  restPet,
  sseClient,
  untilOpen,
  wsClient,
} from '../helpers/live.js';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp.js';
import { childDatabase } from '../helpers/process.js';
import { type ServerProcess, startServer } from '../helpers/server.js';

const redisUrl = inject('redisUrl');

describe.runIf(database === 'postgresql' && databaseAvailable && redisUrl !== null)(
  'two tracing replicas on one PostgreSQL and one Redis',
  () => {
    const db = childDatabase();
    let receiver: OtlpReceiver;
    let a: ServerProcess;
    let b: ServerProcess;
    beforeAll(async () => {
      receiver = await startOtlpReceiver();
      const env = {
        DATABASE_URL: db.url,
        REDIS_URL: redisUrl ?? '',
        AUTH_JWT_SECRET: liveSecret,
        SEED: 'false',
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_BSP_SCHEDULE_DELAY: '50',
      };
      // One after the other: the first one migrates the new database.
      a = await startServer({ ...env, OTEL_SERVICE_NAME: 'replica-a' });
      b = await startServer({ ...env, OTEL_SERVICE_NAME: 'replica-b' });
    });
    afterAll(async () => {
      await b?.stop();
      await a?.stop();
      await db.drop();
      await receiver?.close();
    });

    it('links each event replica B delivers to the trace of the write on replica A', async () => {
      const token = await liveToken();
      const { id: pet } = await restPet(a, token, 3);
      const query = `subscription { orderChanged(petId: "${pet}") { kind order { quantity } } }`;
      const ws = wsClient(b, token);
      const sse = sseClient(b, token);
      const overWs = events((sink) => ws.subscribe({ query }, sink));
      const overSse = events((sink) => sse.subscribe({ query }, sink));
      await untilOpen(b, 2);

      const traceId = randomBytes(16).toString('hex');
      const placed = await fetch(`${a.url}/api/store/orders`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01`,
        },
        body: JSON.stringify({ petId: Number(pet), quantity: 2 }),
      });
      expect(placed.status).toBe(201);
      const created = eventOf({ orderChanged: { kind: 'created', order: { quantity: 2 } } });
      expect(await overWs.next()).toEqual(firstEvent(created, 'orderChanged'));
      expect(await overSse.next()).toEqual(firstEvent(created, 'orderChanged'));

      const linked = (spans: typeof receiver.spans) =>
        spans.filter(
          (span) =>
            span.resource['service.name'] === 'replica-b' &&
            span.name === 'subscription event' &&
            span.links.some((link) => link.traceId === traceId),
        );
      // The two subscribers of one document and scopes are one group: one execution, one span,
      // for each event (two if one had not joined its group yet).
      const spans = await receiver.waitFor(
        (all) =>
          linked(all).length >= 1 &&
          all.some((span) => span.traceId === traceId && span.name === 'domain placeOrder'),
      );
      // The link names the write itself: replica A's domain operation, in the caller's trace.
      const write = spans.find(
        (span) => span.traceId === traceId && span.name === 'domain placeOrder',
      );
      expect(write?.resource['service.name']).toBe('replica-a');
      for (const event of linked(spans)) {
        expect(event.links).toEqual([{ traceId, spanId: write?.spanId }]);
        // Each event is a trace of its own.
        expect(event.traceId).not.toBe(traceId);
        expect(event.parentSpanId).toBeUndefined();
      }

      // The reads of a delivery are in its event's trace (the two events' reads may coalesce).
      const eventTraces = new Set(linked(spans).map((event) => event.traceId));
      expect(
        spans.some(
          (span) => eventTraces.has(span.traceId) && span.name === 'prisma:client:db_query',
        ),
      ).toBe(true);

      overWs.close();
      overSse.close();
      await ws.dispose();
      sse.dispose();
    });
  },
);
