import { expect, it } from 'vitest';
import { describeDb, useTestApp } from '../helpers/app.js';
import { anonymous } from '../helpers/client.js';
import { makeCategory, makeOrder, makePet, stockOf } from '../helpers/factories.js';
import { expectError, rest } from '../helpers/rest.js';

describeDb('versions and If-Match on REST', () => {
  const app = useTestApp();

  it('names the version in the ETag of every single-resource answer, and changes it with the resource', async () => {
    const category = await rest<{ id: number }>(app(), 'POST', '/categories', {
      json: { name: `Versioned ${Date.now()}` },
    });
    expect(category.headers.get('etag')).toBe('"1"');
    const pet = await rest<{ id: number }>(app(), 'POST', '/pets', {
      json: { name: 'Rex', categoryId: category.body.id },
    });
    expect(pet.headers.get('etag')).toBe('"1"');
    const read = await rest(app(), 'GET', `/pets/${pet.body.id}`);
    expect(read.headers.get('etag')).toBe('"1"');
    const replaced = await rest(app(), 'PUT', `/pets/${pet.body.id}`, {
      json: { name: 'Rex II', categoryId: category.body.id },
    });
    expect(replaced.headers.get('etag')).toBe('"2"');
    expect((await rest(app(), 'GET', `/pets/${pet.body.id}`)).headers.get('etag')).toBe('"2"');

    const stocked = await rest(app(), 'PUT', `/store/inventory/${pet.body.id}`, {
      json: { quantity: 3 },
    });
    expect(stocked.headers.get('etag')).toBe('"2"');
    const order = await rest<{ id: number }>(app(), 'POST', '/store/orders', {
      json: { petId: pet.body.id, quantity: 1 },
    });
    expect(order.headers.get('etag')).toBe('"1"');
    const patched = await rest(app(), 'PATCH', `/store/orders/${order.body.id}`, {
      json: { shipDate: '2027-01-01T00:00:00Z' },
    });
    expect(patched.headers.get('etag')).toBe('"2"');
    expect((await rest(app(), 'GET', `/store/orders/${order.body.id}`)).headers.get('etag')).toBe(
      '"2"',
    );
    // The order took stock: the inventory item changed.
    const stock = await rest(app(), 'GET', `/store/inventory/${pet.body.id}`);
    expect(stock.headers.get('etag')).toBe('"3"');
  });

  it("changes an inventory item's version when its pet's status changes, and only then", async () => {
    const pet = await makePet(app(), { quantity: 2 });
    const tag = async () =>
      (await rest(app(), 'GET', `/store/inventory/${pet.id}`)).headers.get('etag');
    expect(await tag()).toBe('"1"');
    // A new name: the item shows no name, its version stays.
    await rest(app(), 'PUT', `/pets/${pet.id}`, {
      json: { name: 'Renamed', categoryId: Number(pet.categoryId) },
    });
    expect(await tag()).toBe('"1"');
    await rest(app(), 'PUT', `/pets/${pet.id}`, {
      json: { name: 'Renamed', categoryId: Number(pet.categoryId), status: 'pending' },
    });
    expect(await tag()).toBe('"2"');
    const item = await rest(app(), 'GET', `/store/inventory/${pet.id}`);
    expect(item.body).toMatchObject({ status: 'pending' });
  });

  it('answers 304 to If-None-Match naming the version, and 200 once it changed', async () => {
    const category = await makeCategory(app());
    const first = await rest(anonymous(app()), 'GET', `/categories/${category.id}`);
    const etag = first.headers.get('etag') as string;
    expect(etag).toBe('"1"');
    const again = await rest(anonymous(app()), 'GET', `/categories/${category.id}`, {
      headers: { 'if-none-match': etag },
    });
    expect(again.status).toBe(304);
    await rest(app(), 'PUT', `/categories/${category.id}`, {
      json: { name: `${category.name} (new)` },
    });
    const changed = await rest(anonymous(app()), 'GET', `/categories/${category.id}`, {
      headers: { 'if-none-match': etag },
    });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).toBe('"2"');
  });

  it('writes only over the version If-Match names: 412 with the current ETag otherwise', async () => {
    const pet = await makePet(app(), { name: 'Before' });
    const categoryId = Number(pet.categoryId);
    const put = (ifMatch: string, name: string) =>
      rest(app(), 'PUT', `/pets/${pet.id}`, {
        json: { name, categoryId },
        headers: { 'if-match': ifMatch },
      });
    const first = await put('"1"', 'First');
    expect(first.status).toBe(200);
    expect(first.headers.get('etag')).toBe('"2"');
    // Someone still holding version 1 loses, and learns the current version.
    const stale = await put('"1"', 'Lost');
    expectError(stale, 412, 'PRECONDITION_FAILED', /has changed: its version is now 2/);
    expect(stale.headers.get('etag')).toBe('"2"');
    // Several tags: any of them will do; a weak one never matches (strong comparison).
    expect((await put('"7", "2"', 'Second')).status).toBe(200);
    expectError(await put('W/"3"', 'Weak'), 412, 'PRECONDITION_FAILED');
    // `*`: only that it exists.
    expect((await put('*', 'Any')).status).toBe(200);
    expectError(
      await rest(app(), 'PUT', '/pets/987654321', {
        json: { name: 'Nobody', categoryId },
        headers: { 'if-match': '*' },
      }),
      404,
      'PET_NOT_FOUND',
    );
    expectError(await put('3', 'Unquoted'), 400, 'VALIDATION_FAILED', /If-Match must be/);
    const stored = await app().database.prisma.pet.findUniqueOrThrow({ where: { id: pet.id } });
    expect({ name: stored.name, version: stored.version }).toEqual({ name: 'Any', version: 4 });
  });

  it('refuses a PUT with If-None-Match: * over a pet, a category or stock that exists: 412, nothing changes', async () => {
    const pet = await makePet(app(), { name: 'Kept', quantity: 4 });
    const categoryId = Number(pet.categoryId);
    const puts = [
      { path: `/pets/${pet.id}`, json: { name: 'Overwritten', categoryId } },
      { path: `/categories/${categoryId}`, json: { name: `Overwritten ${pet.id}` } },
      { path: `/store/inventory/${pet.id}`, json: { quantity: 40 } },
    ];
    for (const { path, json } of puts) {
      const before = await rest(app(), 'GET', path);
      const refused = await rest(app(), 'PUT', path, { json, headers: { 'if-none-match': '*' } });
      expectError(refused, 412, 'PRECONDITION_FAILED', /exists, and If-None-Match/);
      expect(refused.headers.get('etag'), path).toBe(before.headers.get('etag'));
      const after = await rest(app(), 'GET', path);
      expect(after.text, path).toBe(before.text);
      // A list of tags: 412 while it names the current version (weakly compared), else written.
      const etag = before.headers.get('etag') as string;
      const named = await rest(app(), 'PUT', path, {
        json,
        headers: { 'if-none-match': `"999", W/${etag}` },
      });
      expectError(named, 412, 'PRECONDITION_FAILED');
      const other = await rest(app(), 'PUT', path, { json, headers: { 'if-none-match': '"999"' } });
      expect(other.status, path).toBe(200);
    }
    // Nothing there: the condition holds, and the PUT answers as it would (it never creates).
    expectError(
      await rest(app(), 'PUT', '/pets/987654321', {
        json: { name: 'Nobody', categoryId },
        headers: { 'if-none-match': '*' },
      }),
      404,
      'PET_NOT_FOUND',
    );
    expectError(
      await rest(app(), 'PUT', `/pets/${pet.id}`, {
        json: { name: 'Bad', categoryId },
        headers: { 'if-none-match': 'nope' },
      }),
      400,
      'VALIDATION_FAILED',
      /If-None-Match must be/,
    );
  });

  it('refuses a PATCH or DELETE with If-None-Match: * over a pet, a category or an order that exists: 412, nothing changes', async () => {
    const pet = await makePet(app(), { quantity: 4 });
    const order = await makeOrder(app(), { petId: pet.id });
    const category = await makeCategory(app());
    const writes = [
      { method: 'PATCH', path: `/store/orders/${order.id}`, json: { complete: true } },
      { method: 'DELETE', path: `/store/orders/${order.id}` },
      { method: 'DELETE', path: `/categories/${category.id}` },
      { method: 'DELETE', path: `/pets/${(await makePet(app())).id}` },
    ];
    for (const { method, path, json } of writes) {
      const before = await rest(app(), 'GET', path);
      const refused = await rest(app(), method, path, {
        json,
        headers: { 'if-none-match': '*' },
      });
      expectError(refused, 412, 'PRECONDITION_FAILED', /exists, and If-None-Match/);
      expect(refused.headers.get('etag'), path).toBe(before.headers.get('etag'));
      const after = await rest(app(), 'GET', path);
      expect(after.text, `${method} ${path}`).toBe(before.text);
      // A list of tags: 412 while it names the current version (weakly compared).
      const etag = before.headers.get('etag') as string;
      const named = await rest(app(), method, path, {
        json,
        headers: { 'if-none-match': `"999", W/${etag}` },
      });
      expectError(named, 412, 'PRECONDITION_FAILED');
      expect(named.headers.get('etag'), path).toBe(etag);
    }
    expect(await stockOf(app(), pet.id)).toEqual({ quantity: 4, status: 'available' });
    // Another version named: the condition holds and the write goes through.
    const written = await rest(app(), 'PATCH', `/store/orders/${order.id}`, {
      json: { complete: true },
      headers: { 'if-none-match': '"999"' },
    });
    expect(written.status).toBe(200);
    const deleted = await rest(app(), 'DELETE', `/categories/${category.id}`, {
      headers: { 'if-none-match': '"999"' },
    });
    expect(deleted.status).toBe(204);
    // Nothing there: the condition holds, and the write answers as it would.
    expectError(
      await rest(app(), 'DELETE', '/pets/987654321', { headers: { 'if-none-match': '*' } }),
      404,
      'PET_NOT_FOUND',
    );
    expectError(
      await rest(app(), 'DELETE', `/pets/${pet.id}`, { headers: { 'if-none-match': 'nope' } }),
      400,
      'VALIDATION_FAILED',
      /If-None-Match must be/,
    );
    expectError(
      await rest(app(), 'DELETE', `/pets/${pet.id}`, { headers: { 'if-none-match': '' } }),
      400,
      'VALIDATION_FAILED',
      /If-None-Match must be/,
    );
  });

  it('lets exactly one of 20 simultaneous PATCHes with If-None-Match naming the next version through', async () => {
    const pet = await makePet(app(), { quantity: 2 });
    const order = await makeOrder(app(), { petId: pet.id });
    // Each PATCH bumps the version to "2": the first to write makes every other one's condition
    // false, however they interleave.
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        rest(app(), 'PATCH', `/store/orders/${order.id}`, {
          json: { shipDate: `2027-01-${String(index + 1).padStart(2, '0')}T00:00:00Z` },
          headers: { 'if-none-match': '"2"' },
        }),
      ),
    );
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([200, ...Array(19).fill(412)]);
    for (const response of responses) {
      if (response.status === 412) {
        expectError(response, 412, 'PRECONDITION_FAILED');
        expect(response.headers.get('etag')).toBe('"2"');
      }
    }
    const stored = await app().database.prisma.order.findUniqueOrThrow({
      where: { id: order.id },
    });
    expect(stored.version).toBe(2);
  });

  it('deletes, cancels and sets stock only over the version If-Match names', async () => {
    const pet = await makePet(app(), { quantity: 5 });
    const order = await makeOrder(app(), { petId: pet.id });
    await rest(app(), 'PATCH', `/store/orders/${order.id}`, { json: { complete: false } });
    expectError(
      await rest(app(), 'DELETE', `/store/orders/${order.id}`, { headers: { 'if-match': '"1"' } }),
      412,
      'PRECONDITION_FAILED',
    );
    expectError(
      await rest(app(), 'PATCH', `/store/orders/${order.id}`, {
        json: { complete: true },
        headers: { 'if-match': '"1"' },
      }),
      412,
      'PRECONDITION_FAILED',
    );
    const cancelled = await rest(app(), 'DELETE', `/store/orders/${order.id}`, {
      headers: { 'if-match': '"2"' },
    });
    expect(cancelled.status).toBe(204);

    const stock = await rest(app(), 'GET', `/store/inventory/${pet.id}`);
    const staleStock = await rest(app(), 'PUT', `/store/inventory/${pet.id}`, {
      json: { quantity: 9 },
      headers: { 'if-match': '"1"' },
    });
    expectError(staleStock, 412, 'PRECONDITION_FAILED', /The stock of pet/);
    expect(staleStock.headers.get('etag')).toBe(stock.headers.get('etag'));
    expect(await stockOf(app(), pet.id)).toEqual({ quantity: 6, status: 'available' });

    const category = await makeCategory(app());
    expectError(
      await rest(app(), 'DELETE', `/categories/${category.id}`, { headers: { 'if-match': '"9"' } }),
      412,
      'PRECONDITION_FAILED',
    );
    expect(
      (
        await rest(app(), 'DELETE', `/categories/${category.id}`, {
          headers: { 'if-match': '"1"' },
        })
      ).status,
    ).toBe(204);
  });

  it('lets exactly one of 20 simultaneous PUTs holding the same ETag through', async () => {
    const pet = await makePet(app());
    const etag = (await rest(app(), 'GET', `/pets/${pet.id}`)).headers.get('etag') as string;
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        rest(app(), 'PUT', `/pets/${pet.id}`, {
          json: { name: `Writer ${index}`, categoryId: Number(pet.categoryId) },
          headers: { 'if-match': etag },
        }),
      ),
    );
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([200, ...Array(19).fill(412)]);
    const winner = responses.find((response) => response.status === 200);
    for (const response of responses) {
      if (response.status === 412) {
        expectError(response, 412, 'PRECONDITION_FAILED');
        expect(response.headers.get('etag')).toBe('"2"');
      }
    }
    const stored = await app().database.prisma.pet.findUniqueOrThrow({ where: { id: pet.id } });
    expect({ name: stored.name, version: stored.version }).toEqual({
      name: (winner?.body as { name: string } | undefined)?.name,
      version: 2,
    });
  });
});
