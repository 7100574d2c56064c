import { afterAll, expect, it } from 'vitest';
import { describeDb } from '../helpers/app.js';
import { liveSecret, liveToken, ordersOfPet, restCall, restPet } from '../helpers/live.js';
import { childDatabase } from '../helpers/process.js';
import { type ServerProcess, startServer } from '../helpers/server.js';

const STOCK = 1000;

describeDb('a server killed with SIGKILL during writes', { timeout: 60_000 }, () => {
  const db = childDatabase();
  const env = { DATABASE_URL: db.url, AUTH_JWT_SECRET: liveSecret, SEED: 'false' };
  afterAll(() => db.drop());

  it('keeps every acknowledged order and conserves stock, and restarts with no manual step', async () => {
    const token = await liveToken();
    let server: ServerProcess = await startServer(env);
    const { id: petId } = await restPet(server, token, STOCK);

    // Orders in flight from several clients until the process is killed under them.
    const acknowledged = new Set<number>();
    let killed = false;
    const client = async () => {
      while (!killed) {
        try {
          const placed = await restCall(server, 'POST', '/store/orders', token, {
            petId: Number(petId),
            quantity: 1 + (acknowledged.size % 3),
          });
          if (placed.status === 201) acknowledged.add(placed.body?.id as number);
        } catch {
          // The connection died with the process: not acknowledged.
        }
      }
    };
    const clients = Array.from({ length: 8 }, client);
    while (acknowledged.size < 30) await new Promise((resolve) => setTimeout(resolve, 10));
    server.child.kill('SIGKILL');
    await server.exited;
    killed = true;
    await Promise.all(clients);

    server = await startServer(env);
    try {
      const orders = await ordersOfPet(server, token, petId);
      const stored = new Set(orders.map((order) => order.id));
      for (const id of acknowledged) expect(stored.has(id)).toBe(true);

      const stock = await restCall(server, 'GET', `/store/inventory/${petId}`, token);
      const ordered = orders.reduce((sum, order) => sum + order.quantity, 0);
      expect((stock.body?.quantity as number) + ordered).toBe(STOCK);
    } finally {
      await server.stop();
    }
  });
});
