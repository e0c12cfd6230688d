import { IsNull } from 'typeorm';
import { ImportEntity } from '../../src/newsletter/entities/import.entity';
import { ImportService } from '../../src/newsletter/bulk-import/import.service';
import { MembershipEntity } from '../../src/newsletter/entities/membership.entity';
import { SubscriptionEntity } from '../../src/newsletter/entities/subscription.entity';
import { SuppressionEntity } from '../../src/newsletter/entities/suppression.entity';
import { emailHash } from '../../src/newsletter/audience/subscription-writer';
import { eventually } from '../support/app';
import { snapshotDatabase } from '../support/db-snapshot';
import { ISO } from '../support/matchers';
import { expectProblem } from '../support/problem';
import { Tenant, withTenants } from '../support/tenant';
import { linksMailedTo, makeList, nl, subscribe } from './newsletter-fixtures';

describe('newsletter import, bulk and sync', () => {
  // Imports of more than 5 valid rows are queued, so the job path runs on small files too.
  const ctx = withTenants(2, { env: { NEWSLETTER_IMPORT_SYNC_ROWS: '5', NEWSLETTER_IMPORT_BATCH_ROWS: '100' } });
  let a: Tenant;
  let b: Tenant;
  const subs = () => ctx.t.db.getRepository(SubscriptionEntity);
  const statusOn = async (listId: number, x = a) => {
    const rows = await ctx.t.db
      .getRepository(MembershipEntity)
      .createQueryBuilder('m')
      .innerJoin(SubscriptionEntity, 's', 's.id = m.subscription_id')
      .select(['s.email AS email', 'm.status AS status'])
      .where('m.list_id = :listId AND s.site_id = :siteId', { listId, siteId: x.siteId })
      .orderBy('s.email')
      .getRawMany<{ email: string; status: string }>();
    return Object.fromEntries(rows.map((r) => [r.email, r.status]));
  };
  const importFile = (x: Tenant, content: string | Buffer, fields: Record<string, string>, name = 'people.csv') => {
    let req = x.api.post(nl(x, '/subscriptions/import'));
    for (const [k, v] of Object.entries(fields)) req = req.field(k, v);
    return req.attach('file', Buffer.isBuffer(content) ? content : Buffer.from(content), name);
  };
  /** A person who left `listId` themselves (single opt-in list, then the one-click link). */
  async function leftBy(x: Tenant, email: string, listId: number) {
    await subscribe(ctx.t, x, { email, lists: [listId] }).expect(202);
    const { manage } = await linksMailedTo(ctx.t, x, email);
    await x.api.post(nl(x, '/unsubscribe')).send({ token: manage, listId }).expect(200);
  }

  beforeAll(() => {
    [a, b] = ctx.tenants;
  });

  it('CSV import: BOM, header mapping, upserts, and bad rows reported by row number (200, at once)', async () => {
    const list = await makeList(a, { name: 'Imported' });
    await subscribe(ctx.t, a, { email: 'known@example.com', name: 'Known', lists: [list.id] }).expect(202);
    const csv =
      '\uFEFFE-mail Address,Full name,Plan,Notes\r\n' +
      'new1@example.com,New One,pro,x\r\n' +
      'not-an-email,Bad,free,\r\n' +
      'KNOWN@example.com,Renamed,gold,\r\n' +
      ',Nobody,,\r\n' +
      '"new2@example.com","Two, with comma",free,\r\n';
    const res = await importFile(a, csv, {
      listIds: String(list.id),
      consent: 'true',
      columns: JSON.stringify({ 'E-mail Address': 'email', 'Full name': 'name', Plan: 'attributes.plan', Notes: '-' }),
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: expect.any(Number),
      status: 'completed',
      mode: 'subscribe',
      listIds: [list.id],
      consent: true,
      overwrite: false,
      rowsRead: 5,
      rowsDone: 3,
      created: 2,
      updated: 1,
      skipped: 0,
      invalidCount: 2,
      invalid: [
        { row: 3, reason: 'email: must be an email address' },
        { row: 5, reason: 'email: is required' },
      ],
      error: null,
      createdAt: ISO,
      finishedAt: ISO,
    });
    expect(await statusOn(list.id)).toEqual({
      'known@example.com': 'active',
      'new1@example.com': 'active',
      'new2@example.com': 'active',
    });
    const two = await subs().findOneByOrFail({ siteId: a.siteId, email: 'new2@example.com' });
    expect(two).toEqual(
      expect.objectContaining({ name: 'Two, with comma', attributes: { plan: 'free' }, source: 'import' }),
    );
    // Without overwrite a known address keeps its name and gains only attributes it lacked.
    const known = await subs().findOneByOrFail({ siteId: a.siteId, email: 'known@example.com' });
    expect(known).toEqual(expect.objectContaining({ name: 'Known', attributes: { plan: 'gold' } }));
    expect(await ctx.t.db.getRepository(ImportEntity).findOneByOrFail({ id: res.body.id })).toEqual(
      expect.objectContaining({ status: 'completed', created: 2, updated: 1, invalidCount: 2 }),
    );
  });

  it('JSON rows without consent are pending; overwrite replaces the name; a refused upload changes nothing', async () => {
    const list = await makeList(a, { name: 'Json' });
    const rows = [
      { email: 'j1@example.com', name: 'J One', attributes: { city: 'Lyon' } },
      { email: 'j2@example.com', phone: '1' },
    ];
    const res = await importFile(a, JSON.stringify(rows), { listIds: String(list.id), overwrite: 'true' }, 'rows.json');
    expect(res.status).toBe(200);
    expect(res.body).toEqual(
      expect.objectContaining({ created: 1, invalidCount: 1, invalid: [{ row: 2, reason: 'phone: is not allowed' }] }),
    );
    expect(await statusOn(list.id)).toEqual({ 'j1@example.com': 'pending' });
    const before = await snapshotDatabase(ctx.t.db);
    expectProblem(await importFile(a, 'email\nx@example.com\n', {}), 400, 'validation_failed');
    expectProblem(await importFile(a, 'email\nx@example.com\n', { listIds: '999999999' }), 404, 'not_found');
    expectProblem(await importFile(a, 'plan\npro\n', { listIds: String(list.id) }), 400, 'invalid_file');
    expectProblem(await importFile(a, 'email\n"unclosed\n', { listIds: String(list.id) }), 400, 'invalid_file');
    expectProblem(await importFile(a, '{"not":"array"}', { listIds: String(list.id) }, 'x.json'), 400, 'invalid_file');
    expectProblem(
      await importFile(a, 'email\n', { listIds: String(list.id), columns: '{"email":"phone"}' }),
      400,
      'validation_failed',
    );
    // Issue #30, row 10: a nameless field (twice) is named by its path, `""`.
    const nameless = await a.api
      .post(nl(a, '/subscriptions/import'))
      .field('listIds', String(list.id))
      .field('', 'x')
      .field('', 'y')
      .attach('file', Buffer.from('email\nx@example.com\n'), 'people.csv');
    expectProblem(nameless, 400, 'validation_failed');
    expect(nameless.body.errors).toEqual([{ path: '', message: 'is a form field without a name' }]);
    expectProblem(
      await a.api.post(nl(a, '/subscriptions/import')).send({ listIds: String(list.id) }),
      415,
      'unsupported_media_type',
    );
    expect(await snapshotDatabase(ctx.t.db)).toEqual(before);
  });

  it('a large import answers 202 and runs as a job; its status resource shows the progress and the result', async () => {
    const list = await makeList(a, { name: 'Big' });
    const lines = ['email,name'];
    for (let i = 0; i < 250; i++) lines.push(`big${i}@example.com,Person ${i}`);
    lines.push('broken,Nobody');
    const res = await importFile(a, lines.join('\n'), { listIds: String(list.id), consent: 'true' });
    expect(res.status).toBe(202);
    expect(res.body).toEqual(
      expect.objectContaining({ status: 'queued', rowsRead: 251, invalidCount: 1, rowsDone: 0 }),
    );
    const done = await eventually(async () => {
      const r = await a.api.get(nl(a, `/imports/${res.body.id}`)).expect(200);
      return r.body.status === 'completed' ? r.body : undefined;
    });
    expect(done).toEqual(
      expect.objectContaining({
        status: 'completed',
        rowsRead: 251,
        rowsDone: 250,
        created: 250,
        updated: 0,
        skipped: 0,
        invalid: [{ row: 252, reason: 'email: must be an email address' }],
      }),
    );
    const counts = await a.api.get(nl(a, `/lists/${list.id}`)).expect(200);
    expect(counts.body.counts).toEqual({ pending: 0, active: 250, unsubscribed: 0 });
    expectProblem(await b.api.get(nl(b, `/imports/${res.body.id}`)), 404, 'not_found');
  });

  it('chunks upserted side by side: an address repeated across chunks counts once created, then updated', async () => {
    const list = await makeList(a, { name: 'Chunks' });
    // 1,000 rows in chunks of 100, taken by two workers at once; every chunk repeats ten
    // addresses, so the workers meet on the same rows (in address order: no deadlock).
    const lines = ['email,name'];
    for (let i = 0; i < 1000; i++)
      lines.push(i % 10 === 0 ? `shared${(i / 10) % 10}@example.com,Shared` : `own${i}@example.com,Own ${i}`);
    const res = await importFile(a, lines.join('\n'), { listIds: String(list.id), consent: 'true' }).expect(202);
    const done = await eventually(async () => {
      const r = await a.api.get(nl(a, `/imports/${res.body.id}`)).expect(200);
      return r.body.status === 'completed' ? r.body : undefined;
    });
    expect(done).toEqual(
      expect.objectContaining({ rowsRead: 1000, rowsDone: 1000, created: 910, updated: 90, skipped: 0 }),
    );
    expect(await subs().countBy({ siteId: a.siteId, source: 'import', name: 'Shared' })).toBe(10);
    const counts = await a.api.get(nl(a, `/lists/${list.id}`)).expect(200);
    expect(counts.body.counts).toEqual({ pending: 0, active: 910, unsubscribed: 0 });
    const [{ n }] = await ctx.t.db.query<Array<{ n: number }>>(
      'SELECT count(*)::int AS n FROM newsletter_import_chunks WHERE import_id = $1',
      [res.body.id],
    );
    expect(n).toBe(0);
  });

  it('an import whose job gives up says failed, and its staged rows go', async () => {
    const list = await makeList(a, { name: 'Doomed' });
    const imp = await ctx.t.db.getRepository(ImportEntity).save({
      siteId: a.siteId,
      status: 'queued',
      mode: 'subscribe',
      listIds: [list.id],
      consent: false,
      overwrite: false,
      invalid: [],
      error: null,
      finishedAt: null,
    });
    // A chunk no upsert can take: an address of NULL breaks the statement every time.
    await ctx.t.db.query(
      `INSERT INTO newsletter_import_chunks (import_id, chunk_no, row_nos, emails, names, attributes)
       VALUES ($1, 1, '{2}', '{NULL}', '{""}', '{"{}"}')`,
      [imp.id],
    );
    const imports = ctx.t.app.get(ImportService);
    await expect(imports.run(imp.id)).rejects.toThrow();
    await imports.fail(imp.id);
    const r = await a.api.get(nl(a, `/imports/${imp.id}`)).expect(200);
    expect(r.body).toEqual(expect.objectContaining({ status: 'failed', finishedAt: ISO, rowsDone: 0 }));
    expect(r.body.error).toMatch(/internal error/);
    expect(JSON.stringify(r.body)).not.toMatch(/null value|violates|newsletter_/);
    const [{ n }] = await ctx.t.db.query<Array<{ n: number }>>(
      'SELECT count(*)::int AS n FROM newsletter_import_chunks WHERE import_id = $1',
      [imp.id],
    );
    expect(n).toBe(0);
    expect(await subs().countBy({ siteId: a.siteId, email: IsNull() })).toBe(0);
  });

  it('Idempotency-Key: the same import replays its answer without importing twice', async () => {
    const list = await makeList(a, { name: 'Once' });
    const send = () =>
      a.api
        .post(nl(a, '/subscriptions/import'))
        .set('Idempotency-Key', `imp-${list.id}`)
        .field('listIds', String(list.id))
        .attach('file', Buffer.from('email\nonce@example.com\n'), 'once.csv');
    const first = await send().expect(200);
    const again = await send().expect(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await ctx.t.db.getRepository(ImportEntity).countBy({ siteId: a.siteId, listIds: [list.id] as never })).toBe(
      1,
    );
  });

  it('an address that unsubscribed is not re-activated by import, sync or bulk', async () => {
    const list = await makeList(a, { name: 'Left', doubleOptIn: false });
    await leftBy(a, 'left@example.com', list.id);
    expect(await statusOn(list.id)).toEqual({ 'left@example.com': 'unsubscribed' });
    const imp = await importFile(a, 'email\nleft@example.com\n', { listIds: String(list.id), consent: 'true' }).expect(
      200,
    );
    expect(imp.body).toEqual(expect.objectContaining({ created: 0, updated: 0, skipped: 1 }));
    const sync = await a.api
      .post(nl(a, '/subscriptions/sync'))
      .send({ listId: list.id, emails: ['left@example.com'], consent: true })
      .expect(200);
    expect(sync.body).toEqual({ added: 0, unsubscribed: 0, unchanged: 0, skipped: 1 });
    const sub = await subs().findOneByOrFail({ siteId: a.siteId, email: 'left@example.com' });
    const bulk = await a.api
      .post(nl(a, '/subscriptions/bulk'))
      .send({ action: 'add_to_lists', ids: [sub.id], listIds: [list.id], consent: true })
      .expect(200);
    expect(bulk.body).toEqual({ matched: 1, changed: 0, skipped: 1, batches: 1 });
    expect(await statusOn(list.id)).toEqual({ 'left@example.com': 'unsubscribed' });
  });

  it('bulk over a filter: unsubscribes exactly the matches, counts them; ids of another site match nothing', async () => {
    const list = await makeList(b, { name: 'Filtered', doubleOptIn: false });
    for (const email of ['f1@corp.example', 'f2@corp.example', 'f3@home.example'])
      await subscribe(ctx.t, b, { email, lists: [list.id] }).expect(202);
    const res = await b.api
      .post(nl(b, '/subscriptions/bulk'))
      .send({ action: 'unsubscribe', filter: { listId: list.id, emailContains: 'corp.example' }, reason: 'cleanup' })
      .expect(200);
    expect(res.body).toEqual({ matched: 2, changed: 2, skipped: 0, batches: 1 });
    expect(await statusOn(list.id, b)).toEqual({
      'f1@corp.example': 'unsubscribed',
      'f2@corp.example': 'unsubscribed',
      'f3@home.example': 'active',
    });
    const again = await b.api
      .post(nl(b, '/subscriptions/bulk'))
      .send({ action: 'unsubscribe', filter: { listId: list.id, emailContains: 'corp.example' } })
      .expect(200);
    expect(again.body).toEqual({ matched: 2, changed: 0, skipped: 2, batches: 1 });
    const theirs = await subs().findOneByOrFail({ siteId: b.siteId, email: 'f3@home.example' });
    const other = await a.api
      .post(nl(a, '/subscriptions/bulk'))
      .send({ action: 'delete', ids: [theirs.id] })
      .expect(200);
    expect(other.body).toEqual({ matched: 0, changed: 0, skipped: 0, batches: 1 });
    expect(await subs().findOneBy({ id: theirs.id })).not.toBeNull();
    const del = await b.api
      .post(nl(b, '/subscriptions/bulk'))
      .send({ action: 'delete', ids: [theirs.id] })
      .expect(200);
    expect(del.body).toEqual({ matched: 1, changed: 1, skipped: 0, batches: 1 });
    expect(await subs().findOneBy({ id: theirs.id })).toBeNull();
    expectProblem(
      await b.api.post(nl(b, '/subscriptions/bulk')).send({ action: 'unsubscribe' }),
      400,
      'validation_failed',
    );
    expectProblem(
      await b.api.post(nl(b, '/subscriptions/bulk')).send({ action: 'add_to_lists', ids: [1] }),
      400,
      'validation_failed',
    );
    expectProblem(
      await b.api.post(nl(b, '/subscriptions/bulk')).send({ action: 'explode', ids: [1] }),
      400,
      'validation_failed',
    );
  });

  it('sync makes the membership exactly the set; running it twice gives the same result', async () => {
    const list = await makeList(b, { name: 'Synced' });
    await b.api
      .post(nl(b, '/subscriptions/sync'))
      .send({ listId: list.id, emails: ['s1@example.com', 's2@example.com'], consent: true })
      .expect(200);
    const first = await b.api
      .post(nl(b, '/subscriptions/sync'))
      .send({ listId: list.id, emails: ['S2@example.com', 's3@example.com'], consent: true })
      .expect(200);
    expect(first.body).toEqual({ added: 1, unsubscribed: 1, unchanged: 1, skipped: 0 });
    const state = await statusOn(list.id, b);
    expect(state).toEqual({ 's1@example.com': 'unsubscribed', 's2@example.com': 'active', 's3@example.com': 'active' });
    const second = await b.api
      .post(nl(b, '/subscriptions/sync'))
      .send({ listId: list.id, emails: ['s2@example.com', 's3@example.com'], consent: true })
      .expect(200);
    expect(second.body).toEqual({ added: 0, unsubscribed: 0, unchanged: 2, skipped: 0 });
    expect(await statusOn(list.id, b)).toEqual(state);
    expectProblem(
      await a.api.post(nl(a, '/subscriptions/sync')).send({ listId: list.id, emails: [] }),
      404,
      'not_found',
    );
    expectProblem(await b.api.post(nl(b, '/subscriptions/sync')).send({ listId: list.id }), 400, 'validation_failed');
  });

  it('blocklist import suppresses known and unknown addresses; a later import skips them', async () => {
    const list = await makeList(a, { name: 'Block', doubleOptIn: false });
    await subscribe(ctx.t, a, { email: 'spam@example.com', lists: [list.id] }).expect(202);
    const res = await importFile(a, 'email\nspam@example.com\nnever@example.com\n', { mode: 'blocklist' }).expect(200);
    expect(res.body).toEqual(expect.objectContaining({ mode: 'blocklist', created: 2, updated: 1 }));
    expect((await subs().findOneByOrFail({ siteId: a.siteId, email: 'spam@example.com' })).deliverability).toBe(
      'suppressed',
    );
    expect(await statusOn(list.id)).toEqual({ 'spam@example.com': 'unsubscribed' });
    expect(
      await ctx.t.db
        .getRepository(SuppressionEntity)
        .countBy({ siteId: a.siteId, emailHash: emailHash('never@example.com') }),
    ).toBe(1);
    const later = await importFile(a, 'email\nnever@example.com\n', {
      listIds: String(list.id),
      consent: 'true',
    }).expect(200);
    expect(later.body).toEqual(expect.objectContaining({ created: 0, skipped: 1 }));
    expect(await subs().countBy({ siteId: a.siteId, email: 'never@example.com' })).toBe(0);
  });
});
