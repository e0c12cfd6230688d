import request from 'supertest';
import { snapshotDatabase } from '../support/db-snapshot';
import { expectExactProblem } from '../support/problem';
import { agent, createTenant, uniqueName, withTenants } from '../support/tenant';

const REPLACED =
  "This key's secret was replaced by a roll; a replaced secret cannot manage keys, the account or its payment connections: use the key's new secret";

/**
 * Issue 42, row 4 (docs/foundation.md, "Rolling"): during a roll's grace the replaced secret keeps
 * doing what the key may do, but cannot roll, revoke or create keys or manage the account, so a
 * leaked secret the owner rolled away cannot take the key back.
 */
describe('a secret replaced by a roll, during its grace', () => {
  const ctx = withTenants(0);

  /** A fresh account with a second unrestricted key, rolled with the default grace by its own secret. */
  async function rolledKey(options: { idempotencyKey?: string } = {}) {
    const x = await createTenant(ctx.t);
    const made = await x.api.post('/api/v2/api-keys').send({ name: 'leaked' });
    expect(made.status).toBe(201);
    const roll = agent(ctx.t, made.body.key as string).post(`/api/v2/api-keys/${made.body.id}/roll`);
    const rolled = await (options.idempotencyKey ? roll.set('Idempotency-Key', options.idempotencyKey) : roll);
    expect(rolled.status).toBe(200);
    return { x, id: made.body.id as number, old: made.body.key as string, next: rolled.body.key as string };
  }

  it('cannot roll the key back, revoke, create keys or touch the account: 403 secret_replaced, nothing changes', async () => {
    const idem = uniqueName('idem');
    const { x, id, old, next } = await rolledKey({ idempotencyKey: idem });
    const as = agent(ctx.t, old);
    const attempts: Array<[string, () => request.Test]> = [
      ['roll with no grace', () => as.post(`/api/v2/api-keys/${id}/roll`).send({ gracePeriodSeconds: 0 })],
      // The owner's roll under its Idempotency-Key: a replay would hand over the new secret.
      ["replay the owner's roll", () => as.post(`/api/v2/api-keys/${id}/roll`).set('Idempotency-Key', idem)],
      ['revoke another key', () => as.delete(`/api/v2/api-keys/${x.keyId}`)],
      ['revoke itself', () => as.delete(`/api/v2/api-keys/${id}`)],
      ['create a key', () => as.post('/api/v2/api-keys').send({ name: 'mine' })],
      ['create a publishable key', () => as.post('/api/v2/api-keys').send({ name: 'mine', kind: 'publishable' })],
      ['schedule the account deletion', () => as.delete('/api/v2/account')],
      ['cancel a deletion', () => as.delete('/api/v2/account/deletion')],
      [
        'roll, as a bearer token',
        () =>
          request(ctx.t.server)
            .post(`/api/v2/api-keys/${id}/roll`)
            .set('Authorization', `Bearer ${old}`)
            .send({ gracePeriodSeconds: 0 }),
      ],
    ];
    const before = await snapshotDatabase(ctx.t.db);
    for (const [label, send] of attempts) {
      const res = await send();
      expect({ label, status: res.status, code: res.body.code }).toEqual({
        label,
        status: 403,
        code: 'secret_replaced',
      });
      expectExactProblem(res, 403, 'secret_replaced', 'Forbidden', REPLACED);
      expect(JSON.stringify(res.body)).not.toContain(next);
    }
    expect(await snapshotDatabase(ctx.t.db)).toEqual(before);

    // The owner's new secret rolls as before, which ends the leaked one at once.
    const again = await agent(ctx.t, next).post(`/api/v2/api-keys/${id}/roll`).send({ gracePeriodSeconds: 0 });
    expect(again.status).toBe(200);
    expect((await as.get('/api/v2/api-keys')).status).toBe(401);
  });

  it('still reads and writes what the key may: content, the site, the key list, the account preview', async () => {
    const { x, id, old } = await rolledKey();
    const as = agent(ctx.t, old);
    const post = await as.post(`/api/v2/sites/${x.siteName}/content`).send({ title: 'Still here', slug: 'still' });
    expect(post.status).toBe(201);
    const site = await as.patch(`/api/v2/sites/${x.siteName}`).send({ title: 'Renamed by the old secret' });
    expect([site.status, site.body.title]).toEqual([200, 'Renamed by the old secret']);
    const listed = await as.get('/api/v2/api-keys');
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((k: { id: number }) => k.id)).toContain(id);
    expect((await as.get(`/api/v2/api-keys/${id}`)).status).toBe(200);
    expect((await as.get('/api/v2/account/deletion-preview')).status).toBe(200);
    const [row] = await ctx.t.db.query('SELECT title FROM content_items WHERE id = $1', [post.body.id]);
    expect(row).toEqual({ title: 'Still here' });

    // Refused where it manages keys, from the same request path.
    expectExactProblem(
      await as.post('/api/v2/api-keys').send({ name: 'x' }),
      403,
      'secret_replaced',
      'Forbidden',
      REPLACED,
    );
  });
});
