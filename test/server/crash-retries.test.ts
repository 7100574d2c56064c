import { randomUUID } from 'node:crypto';
import { afterAll, expect, it } from 'vitest';
import { describeDb } from '../helpers/app.js';
import { liveSecret, liveToken, ordersOfPet, restCall, restPet } from '../helpers/live.js';
import { childDatabase } from '../helpers/process.js';
import { type ServerProcess, startServer } from '../helpers/server.js';

const STOCK = 1000;

/** A keyed order as a client sends it, and what it finally got. */
interface Attempt {
  key: string;
  quantity: number;
  /** The order id of the 201 (first answer or retry); undefined while unanswered. */
  orderId?: number;
}

describeDb('keyed orders across a SIGKILL', { timeout: 90_000 }, () => {
  const db = childDatabase();
  // A short time limit: a key whose request died with the process is free again 1 s after it.
  const env = {
    DATABASE_URL: db.url,
    AUTH_JWT_SECRET: liveSecret,
    SEED: 'false',
    REQUEST_TIMEOUT_MS: '2000',
  };
  afterAll(() => db.drop());

  it('places exactly one order per key when every unanswered key is retried after a restart', async () => {
    const token = await liveToken();
    let server: ServerProcess = await startServer(env);
    const { id: petId } = await restPet(server, token, STOCK);
    const send = (target: ServerProcess, attempt: Attempt) =>
      fetch(`${target.url}/api/store/orders`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'idempotency-key': attempt.key,
        },
        body: JSON.stringify({ petId: Number(petId), quantity: attempt.quantity }),
      });

    // Several clients place keyed orders until the process is killed under them.
    const attempts: Attempt[] = [];
    let killed = false;
    const client = async () => {
      while (!killed) {
        const attempt: Attempt = { key: randomUUID(), quantity: 1 + (attempts.length % 3) };
        attempts.push(attempt);
        try {
          const response = await send(server, attempt);
          const body = (await response.json()) as { id?: number };
          if (response.status === 201) attempt.orderId = body.id;
        } catch {
          // The connection died with the process: unanswered, to be retried.
        }
      }
    };
    const clients = Array.from({ length: 6 }, client);
    while (attempts.filter((attempt) => attempt.orderId !== undefined).length < 30)
      await new Promise((resolve) => setTimeout(resolve, 10));
    server.child.kill('SIGKILL');
    await server.exited;
    killed = true;
    await Promise.all(clients);

    server = await startServer(env);
    try {
      // Every key retried until it has its answer: unanswered ones (their order may or may not
      // have been placed before the kill), and a few answered ones (their answer comes back).
      const unanswered = attempts.filter((attempt) => attempt.orderId === undefined);
      expect(unanswered.length).toBeGreaterThan(0);
      const acknowledged = new Map(
        attempts.filter((a) => a.orderId !== undefined).map((a) => [a.key, a.orderId]),
      );
      for (const attempt of attempts) {
        for (let tries = 0; ; tries++) {
          const response = await send(server, attempt);
          const body = (await response.json()) as { id?: number; code?: string };
          if (response.status === 201) {
            attempt.orderId = body.id;
            break;
          }
          // A request that died with the process holds its key until its lease runs out.
          expect({ status: response.status, code: body.code }).toEqual({
            status: 409,
            code: 'IDEMPOTENCY_KEY_IN_FLIGHT',
          });
          expect(tries).toBeLessThan(50);
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      }
      for (const [key, id] of acknowledged)
        expect(attempts.find((attempt) => attempt.key === key)?.orderId).toBe(id);

      const orders = await ordersOfPet(server, token, petId);
      // One order per key, no order without a key.
      const answered = attempts.map((attempt) => attempt.orderId).sort();
      expect(new Set(answered).size).toBe(attempts.length);
      expect(orders.map((order) => order.id).sort()).toEqual(answered);
      for (const attempt of attempts) {
        expect(orders.find((order) => order.id === attempt.orderId)?.quantity).toBe(
          attempt.quantity,
        );
      }

      const stock = await restCall(server, 'GET', `/store/inventory/${petId}`, token);
      const ordered = orders.reduce((sum, order) => sum + order.quantity, 0);
      expect((stock.body?.quantity as number) + ordered).toBe(STOCK);
    } finally {
      await server.stop();
    }
  });
});
