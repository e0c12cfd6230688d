import request from 'supertest';
import { AccountDeletionEntity } from '../../src/account/entities/account-deletion.entity';
import { ContactsService } from '../../src/contacts/contacts.service';
import { ContactEntity } from '../../src/contacts/entities/contact.entity';
import { EmailService } from '../../src/email/email.service';
import { EmailMessageEntity } from '../../src/email/entities/email-message.entity';
import { eventually, startApp, TestApp } from '../support/app';
import { createFreshDatabase } from '../support/databases';
import { snapshotDatabase } from '../support/db-snapshot';
import { eventsOf, lastEventId } from '../support/events';
import { ISO } from '../support/matchers';
import { expectExactProblem, expectProblem } from '../support/problem';
import { startSmtpSink, SmtpSink } from '../support/smtp';
import { createTenant, Tenant, withTenants } from '../support/tenant';

const url = (x: Tenant, rest = '') => `/api/v2/sites/${x.siteName}/contacts${rest}`;
const RECEIPT = { received: true, receivedAt: ISO };
/** What supertest's requests come from, as Express reports it (IPv4, or IPv4 mapped to IPv6). */
const LOCALHOST = expect.stringMatching(/^(::ffff:)?127\.0\.0\.1$/);

const message = {
  name: 'Grace Hopper',
  email: 'Grace@Example.com',
  phone: '+1 555 0100',
  company: 'Navy',
  subject: 'Shipping to Canada',
  message: 'Hello! Do you ship to Canada?',
  source: 'pricing-page',
  tags: ['sales'],
  metadata: { page: '/pricing', utm: { campaign: 'spring' } },
};

/** Sets the site's notify addresses through the API, as an operator would. */
async function notify(x: Tenant, notifyEmails: string[]): Promise<void> {
  await x.api
    .patch(`/api/v2/sites/${x.siteName}`)
    .send({ settings: { contacts: { notifyEmails } } })
    .expect(200);
}

describe('/api/v2/sites/:siteName/contacts', () => {
  // TRUST_PROXY: the client address may come from X-Forwarded-For (none sent: the socket's).
  const ctx = withTenants(2, { env: { ACCOUNT_DELETION_GRACE_SECONDS: '0', TRUST_PROXY: 'true' } });
  let a: Tenant;
  let b: Tenant;
  const rows = () => ctx.t.db.getRepository(ContactEntity);
  const messagesOf = (x: Tenant) => ctx.t.db.getRepository(EmailMessageEntity).countBy({ siteId: x.siteId });
  const anonymous = () => request(ctx.t.server);

  beforeAll(() => {
    [a, b] = ctx.tenants;
  });

  describe('POST (public: the contact form)', () => {
    it('takes a message without a key: 201 with a receipt only, the row with IP and user agent, contact.created', async () => {
      const after = await lastEventId(ctx.t);
      const res = await anonymous().post(url(a)).set('user-agent', 'Mozilla/5.0 (Contact test)').send(message);
      expect(res.status).toBe(201);
      expect(res.body).toEqual(RECEIPT);
      // Nothing an anonymous sender cannot read: no id, no operator URL.
      expect(res.headers.location).toBeUndefined();
      const [row] = await rows().findBy({ siteId: a.siteId });
      expect(row).toEqual({
        id: expect.any(Number),
        siteId: a.siteId,
        name: 'Grace Hopper',
        email: 'grace@example.com',
        phone: '+1 555 0100',
        company: 'Navy',
        subject: 'Shipping to Canada',
        message: 'Hello! Do you ship to Canada?',
        source: 'pricing-page',
        status: 'new',
        tags: ['sales'],
        metadata: { page: '/pricing', utm: { campaign: 'spring' } },
        clientIp: LOCALHOST,
        userAgent: 'Mozilla/5.0 (Contact test)',
        createdAt: new Date(res.body.receivedAt),
        updatedAt: new Date(res.body.receivedAt),
      });
      // The payload names the contact, never the person (webhooks carry it out).
      expect((await eventsOf(ctx.t, a, after)).map((e) => [e.name, e.payload])).toEqual([
        ['contact.created', { id: row.id, status: 'new', source: 'pricing-page', tags: ['sales'] }],
      ]);
      // No notify addresses set: no mail.
      expect(await messagesOf(a)).toBe(0);
    });

    it('with a key, 201 answers the stored contact with Location, like every create; defaults; long user agents are cut', async () => {
      const x = await createTenant(ctx.t);
      const since = await lastEventId(ctx.t);
      const res = await x.api
        .post(url(x))
        .set('user-agent', 'U'.repeat(600))
        .send({ name: 'Ada', email: 'ada@example.com', message: 'Hi' })
        .expect(201);
      const row = await rows().findOneByOrFail({ siteId: x.siteId });
      expect(res.body).toEqual({
        id: row.id,
        name: 'Ada',
        email: 'ada@example.com',
        phone: null,
        company: null,
        subject: null,
        message: 'Hi',
        source: 'contact-form',
        status: 'new',
        tags: [],
        metadata: {},
        clientIp: expect.any(String),
        userAgent: 'U'.repeat(500),
        createdAt: ISO,
        updatedAt: ISO,
      });
      expect(res.headers.location).toMatch(new RegExp(`${url(x)}/${row.id}$`));
      expect((await x.api.get(url(x, `/${row.id}`)).expect(200)).body).toEqual(res.body);
      expect((await eventsOf(ctx.t, x, since)).map((e) => e.name)).toEqual(['contact.created']);
      // A key of another account reads as anonymous on this public route: the receipt only.
      const other = await createTenant(ctx.t);
      const foreign = await other.api.post(url(x)).send({ name: 'B', email: 'b@example.com', message: 'Hi' });
      expect([foreign.status, foreign.body, foreign.headers.location]).toEqual([201, RECEIPT, undefined]);
      // A honeypot hit stays a receipt, with a key too: nothing is stored.
      const spam = await x.api.post(url(x)).send({ name: 'B', email: 'b@example.com', message: 'x', website: 'y' });
      expect([spam.status, spam.body, spam.headers.location]).toEqual([201, RECEIPT, undefined]);
      expect(await rows().countBy({ siteId: x.siteId })).toBe(2);
      expect(await rows().findOneByOrFail({ siteId: x.siteId, id: row.id })).toEqual(
        expect.objectContaining({
          phone: null,
          company: null,
          subject: null,
          source: 'contact-form',
          status: 'new',
          tags: [],
          metadata: {},
          userAgent: 'U'.repeat(500),
        }),
      );
    });

    it('records the client address a trusted proxy names; text that is not an address is kept as null', async () => {
      const x = await createTenant(ctx.t);
      for (const forwarded of ['203.0.113.7', '2001:db8::1, 10.0.0.1', 'not-an-address', '999.1.1.1'])
        await anonymous()
          .post(url(x))
          .set('x-forwarded-for', forwarded)
          .send({ name: 'N', email: 'n@example.com', message: forwarded })
          .expect(201);
      const stored = await rows().find({ where: { siteId: x.siteId }, order: { id: 'ASC' } });
      expect(stored.map((c) => [c.message, c.clientIp])).toEqual([
        ['203.0.113.7', '203.0.113.7'],
        ['2001:db8::1, 10.0.0.1', '2001:db8::1'],
        ['not-an-address', null],
        ['999.1.1.1', null],
      ]);
    });

    it('a filled honeypot answers exactly like a success, and stores and sends nothing', async () => {
      const x = await createTenant(ctx.t);
      await notify(x, ['team@example.com']);
      const before = await snapshotDatabase(ctx.t.db);
      const res = await anonymous()
        .post(url(x))
        .send({ ...message, website: 'http://spam.example' });
      expect(res.status).toBe(201);
      expect(res.body).toEqual(RECEIPT);
      expect(res.headers.location).toBeUndefined();
      expect(await snapshotDatabase(ctx.t.db)).toEqual(before);
      // An empty (or blank) honeypot is what people send: stored and mailed as usual.
      await anonymous()
        .post(url(x))
        .send({ ...message, website: ' ' })
        .expect(201);
      expect(await rows().countBy({ siteId: x.siteId })).toBe(1);
      expect(await messagesOf(x)).toBe(1);
    });

    it('refuses too-long fields, bad addresses and unknown fields with 400 naming the field, storing nothing', async () => {
      const before = await snapshotDatabase(ctx.t.db);
      const bad: Array<[Record<string, unknown>, string]> = [
        [{ name: 'x'.repeat(201) }, 'name'],
        [{ name: '' }, 'name'],
        [{ name: 'Grace\r\nBcc: x@example.com' }, 'name'],
        [{ email: 'not an address' }, 'email'],
        [{ email: 'a@example.com\nBcc: b@example.com' }, 'email'],
        [{ email: `${'a'.repeat(250)}@example.com` }, 'email'],
        [{ phone: '1'.repeat(51) }, 'phone'],
        [{ company: 'x'.repeat(201) }, 'company'],
        [{ subject: 'x'.repeat(201) }, 'subject'],
        [{ subject: 'Hi\nthere' }, 'subject'],
        [{ message: 'x'.repeat(10_001) }, 'message'],
        [{ message: '' }, 'message'],
        [{ source: 'x'.repeat(51) }, 'source'],
        [{ source: 'Contact Form' }, 'source'],
        [{ tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, 'tags'],
        [{ tags: ['x'.repeat(51)] }, 'tags'],
        [{ tags: ['a', 'a'] }, 'tags'],
        [{ metadata: { a: { b: { c: {} } } } }, 'metadata'],
        [{ metadata: { big: 'x'.repeat(5000) } }, 'metadata'],
        [{ metadata: [] }, 'metadata'],
        [{ website: 'x'.repeat(2001) }, 'website'],
        [{ status: 'open' }, 'status'],
        [{ clientIp: '10.0.0.1' }, 'clientIp'],
      ];
      for (const [change, path] of bad) {
        const res = await anonymous()
          .post(url(a))
          .send({ ...message, ...change });
        expectProblem(res, 400, 'validation_failed');
        expect({ change, paths: res.body.errors.map((e: { path: string }) => e.path) }).toEqual({
          change,
          paths: [path],
        });
      }
      for (const field of ['name', 'email', 'message']) {
        const res = await anonymous()
          .post(url(a))
          .send({ ...message, [field]: undefined });
        expectProblem(res, 400, 'validation_failed');
        expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual([field]);
      }
      expect(await snapshotDatabase(ctx.t.db)).toEqual(before);
    });

    it('an unknown site is a 404, as on every site route', async () => {
      expectProblem(
        await anonymous().post('/api/v2/sites/no-such-site-x1/contacts').send(message),
        404,
        'site_not_found',
      );
    });
  });

  describe('operator routes (a key)', () => {
    /** A tenant of its own, with contacts sent a day apart (oldest first). */
    let x: Tenant;
    let ids: number[];

    beforeAll(async () => {
      x = await createTenant(ctx.t);
      const sent = [
        { name: 'Ada Lovelace', email: 'ada@example.com', message: 'About the analytical engine', tags: ['sales'] },
        { name: 'Grace Hopper', email: 'grace@example.com', subject: 'Compilers', message: 'Do you ship to Canada?' },
        { name: 'Alan Turing', email: 'ALAN@example.com', message: 'A question on machines', tags: ['sales', 'vip'] },
        { name: 'Grace Hopper', email: 'grace@example.com', message: 'A second note, about shipping' },
      ];
      for (const body of sent) await anonymous().post(url(x)).send(body).expect(201);
      const stored = await rows().find({ where: { siteId: x.siteId }, order: { id: 'ASC' } });
      ids = stored.map((c) => c.id);
      for (const [i, id] of ids.entries())
        await rows().update({ id }, { createdAt: new Date(Date.UTC(2026, 0, 1 + i, 12)) });
    });

    const idsOf = (res: request.Response) => res.body.data.map((c: { id: number }) => c.id);

    it('lists newest first, keyset-paginated, with every field an operator needs', async () => {
      const first = await x.api.get(`${url(x)}?limit=3`).expect(200);
      expect(idsOf(first)).toEqual([ids[3], ids[2], ids[1]]);
      expect(first.body.data[1]).toEqual({
        id: ids[2],
        name: 'Alan Turing',
        email: 'alan@example.com',
        phone: null,
        company: null,
        subject: null,
        message: 'A question on machines',
        source: 'contact-form',
        status: 'new',
        tags: ['sales', 'vip'],
        metadata: {},
        clientIp: LOCALHOST,
        userAgent: null,
        createdAt: '2026-01-03T12:00:00.000Z',
        updatedAt: ISO,
      });
      expect(first.body.pagination).toEqual({ limit: 3, nextCursor: expect.any(String) });
      const next = await x.api.get(`${url(x)}?limit=3&cursor=${first.body.pagination.nextCursor}`).expect(200);
      expect(idsOf(next)).toEqual([ids[0]]);
      expect(next.body.pagination.nextCursor).toBeNull();
      expectProblem(await x.api.get(`${url(x)}?cursor=bad`), 400, 'invalid_cursor');
    });

    it('filters by status, email (any case), tag, words and a created range; filters combine', async () => {
      await x.api
        .patch(url(x, `/${ids[1]}`))
        .send({ status: 'closed' })
        .expect(200);
      const list = async (query: string) => idsOf(await x.api.get(`${url(x)}?${query}`).expect(200));
      expect(await list('status=closed')).toEqual([ids[1]]);
      expect(await list('status=new')).toEqual([ids[3], ids[2], ids[0]]);
      expect(await list('email=GRACE%40example.com')).toEqual([ids[3], ids[1]]);
      expect(await list('email=alan%40example.com')).toEqual([ids[2]]);
      expect(await list('tag=sales')).toEqual([ids[2], ids[0]]);
      expect(await list('tag=vip')).toEqual([ids[2]]);
      expect(await list('q=shipping')).toEqual([ids[3]]);
      expect(await list('q=compilers')).toEqual([ids[1]]);
      expect(await list('q=ada')).toEqual([ids[0]]);
      expect(await list('q=canada%20-nothing')).toEqual([ids[1]]);
      expect(await list('from=2026-01-02T12:00:00Z&to=2026-01-04T12:00:00Z')).toEqual([ids[2], ids[1]]);
      expect(await list('from=2026-01-02T13:00:00%2B01:00')).toEqual([ids[3], ids[2], ids[1]]);
      expect(await list('email=grace%40example.com&status=new')).toEqual([ids[3]]);
      expect(await list('tag=sales&q=machines&limit=1')).toEqual([ids[2]]);
      for (const [query, path] of [
        ['status=read', 'status'],
        ['email=nobody', 'email'],
        ['from=2026-01-02', 'from'],
        ['to=yesterday', 'to'],
        ['tag=', 'tag'],
        [`q=${'x'.repeat(201)}`, 'q'],
        ['limit=0', 'limit'],
        ['sort=name', 'sort'],
      ]) {
        const res = await x.api.get(`${url(x)}?${query}`);
        expectProblem(res, 400, 'validation_failed');
        expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual([path]);
      }
    });

    it('gets one contact', async () => {
      const res = await x.api.get(url(x, `/${ids[1]}`)).expect(200);
      expect(res.body).toEqual(
        expect.objectContaining({ id: ids[1], name: 'Grace Hopper', subject: 'Compilers', clientIp: LOCALHOST }),
      );
      expectProblem(await x.api.get(url(x, '/999999999')), 404, 'not_found');
    });

    it('PATCH changes status, tags, metadata and sender details; the row and contact.updated follow', async () => {
      const id = ids[0];
      const after = await lastEventId(ctx.t);
      const res = await x.api
        .patch(url(x, `/${id}`))
        .send({
          status: 'open',
          tags: ['sales', 'followed-up'],
          metadata: { crm: 'A-17' },
          name: 'Ada King',
          email: 'Ada.King@Example.com',
          phone: '+44 20 7946 0000',
          company: 'Analytical Engines',
          subject: 'The engine',
        })
        .expect(200);
      expect(res.body).toEqual({
        id,
        name: 'Ada King',
        email: 'ada.king@example.com',
        phone: '+44 20 7946 0000',
        company: 'Analytical Engines',
        subject: 'The engine',
        message: 'About the analytical engine',
        source: 'contact-form',
        status: 'open',
        tags: ['sales', 'followed-up'],
        metadata: { crm: 'A-17' },
        clientIp: LOCALHOST,
        userAgent: null,
        createdAt: '2026-01-01T12:00:00.000Z',
        updatedAt: ISO,
      });
      expect(await rows().findOneByOrFail({ id })).toEqual(
        expect.objectContaining({ status: 'open', email: 'ada.king@example.com', metadata: { crm: 'A-17' } }),
      );
      // null clears the optional details; the same values again change nothing and record nothing.
      const cleared = await x.api
        .patch(url(x, `/${id}`))
        .send({ phone: null, company: null, subject: null, status: 'open', tags: ['sales', 'followed-up'] })
        .expect(200);
      expect([cleared.body.phone, cleared.body.company, cleared.body.subject]).toEqual([null, null, null]);
      const same = await x.api
        .patch(url(x, `/${id}`))
        .send({ status: 'open', metadata: { crm: 'A-17' }, phone: null })
        .expect(200);
      expect(same.body).toEqual(cleared.body);
      expect((await eventsOf(ctx.t, x, after)).map((e) => [e.name, e.payload])).toEqual([
        [
          'contact.updated',
          { id, status: 'open', previousStatus: 'new', source: 'contact-form', tags: ['sales', 'followed-up'] },
        ],
        [
          'contact.updated',
          { id, status: 'open', previousStatus: 'open', source: 'contact-form', tags: ['sales', 'followed-up'] },
        ],
      ]);
    });

    it('PATCH refuses what an operator may not change or bad values: 400 naming the field, nothing changes', async () => {
      const before = await snapshotDatabase(ctx.t.db);
      for (const [body, path] of [
        [{ message: 'Rewritten' }, 'message'],
        [{ source: 'elsewhere' }, 'source'],
        [{ clientIp: '10.0.0.1' }, 'clientIp'],
        [{ status: 'read' }, 'status'],
        [{ status: null }, 'status'],
        [{ name: null }, 'name'],
        [{ email: 'nope' }, 'email'],
        [{ tags: null }, 'tags'],
        [{ metadata: { a: { b: { c: { d: 1 } } } } }, 'metadata'],
        [{ phone: '1'.repeat(51) }, 'phone'],
      ] as Array<[Record<string, unknown>, string]>) {
        const res = await x.api.patch(url(x, `/${ids[2]}`)).send(body);
        expectProblem(res, 400, 'validation_failed');
        expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual([path]);
      }
      expect(await snapshotDatabase(ctx.t.db)).toEqual(before);
    });

    it('operator routes need a key: 401 without one, whatever the body', async () => {
      expectExactProblem(
        await anonymous().get(url(x)),
        401,
        'missing_credential',
        'Unauthorized',
        'An API key (x-api-key) is required',
      );
      expectProblem(await anonymous().get(url(x, `/${ids[0]}`)), 401, 'missing_credential');
      expectProblem(
        await anonymous()
          .patch(url(x, `/${ids[0]}`))
          .send({ status: 'spam' }),
        401,
        'missing_credential',
      );
      expectProblem(
        await anonymous()
          .patch(url(x, `/${ids[0]}`))
          .set('content-type', 'application/json')
          .send('{"status":'),
        401,
        'missing_credential',
      );
      expect((await rows().findOneByOrFail({ id: ids[0] })).status).toBe('open');
    });

    it("another site's contact is a 404, on reads and writes alike", async () => {
      expectExactProblem(await b.api.get(url(b, `/${ids[0]}`)), 404, 'not_found', 'Not found', 'Contact not found');
      expectProblem(await b.api.patch(url(b, `/${ids[0]}`)).send({ status: 'spam' }), 404, 'not_found');
      expect(idsOf(await b.api.get(url(b)).expect(200))).not.toContain(ids[0]);
      // Another account's key does not reach the site at all.
      expectProblem(await b.api.get(url(x, `/${ids[0]}`)), 404, 'site_not_found');
      expect((await rows().findOneByOrFail({ id: ids[0] })).status).toBe('open');
    });
  });

  describe('erasure and account deletion', () => {
    it("eraseByEmail deletes a sender's contacts in one site (any case), in the caller's transaction", async () => {
      const [x, y] = await Promise.all([createTenant(ctx.t), createTenant(ctx.t)]);
      for (const [tenant, email] of [
        [x, 'erase.me@example.com'],
        [x, 'Erase.Me@example.com'],
        [x, 'keep@example.com'],
        [y, 'erase.me@example.com'],
      ] as const)
        await anonymous().post(url(tenant)).send({ name: 'N', email, message: 'M' }).expect(201);
      const contacts = ctx.t.app.get(ContactsService);
      const site = { id: x.siteId, name: x.siteName, accountId: x.accountId };
      // Rolled back with its transaction.
      await expect(
        ctx.t.db.transaction(async (em) => {
          expect(await contacts.eraseByEmail(em, site, 'ERASE.ME@example.com')).toBe(2);
          throw new Error('the erasure fails later');
        }),
      ).rejects.toThrow('fails later');
      expect(await rows().countBy({ siteId: x.siteId })).toBe(3);
      expect(await ctx.t.db.transaction((em) => contacts.eraseByEmail(em, site, 'ERASE.ME@example.com'))).toBe(2);
      expect((await rows().findBy({ siteId: x.siteId })).map((c) => c.email)).toEqual(['keep@example.com']);
      expect(await rows().countBy({ siteId: y.siteId })).toBe(1);
    });

    it('the deletion preview counts the contacts and the purge removes them, and only them', async () => {
      const [x, other] = await Promise.all([createTenant(ctx.t), createTenant(ctx.t)]);
      for (const tenant of [x, x, other])
        await anonymous().post(url(tenant)).send({ name: 'N', email: 'n@example.com', message: 'M' }).expect(201);
      const preview = await x.api.get('/api/v2/account/deletion-preview').expect(200);
      expect(preview.body.resources).toContainEqual({ resource: 'contacts', count: 2, action: 'delete' });
      const scheduled = await x.api.delete('/api/v2/account').expect(202);
      const done = await eventually(async () => {
        const row = await ctx.t.db.getRepository(AccountDeletionEntity).findOneByOrFail({ id: scheduled.body.id });
        return row.status === 'completed' ? row : undefined;
      });
      expect(done.summary).toEqual(expect.objectContaining({ contacts: 2 }));
      expect(await rows().countBy({ siteId: x.siteId })).toBe(0);
      expect(await rows().countBy({ siteId: other.siteId })).toBe(1);
    });
  });
});

describe('the notification mail (an SMTP server in the test)', () => {
  let smtp: SmtpSink;
  let t: TestApp;
  let x: Tenant;
  const logged: Array<Record<string, unknown>> = [];

  beforeAll(async () => {
    smtp = await startSmtpSink();
    // A database of its own: mail other files left queued in the worker's database would reach
    // this SMTP server too (docs/testing.md).
    t = await startApp({
      databaseUrl: await createFreshDatabase('contactsmail'),
      env: { SMTP_URL: smtp.url, MAIL_FROM: 'Sitebase <no-reply@sitebase.test>', LOG_LEVEL: 'error' },
      logDestination: { write: (line: string) => logged.push(JSON.parse(line) as Record<string, unknown>) },
    });
    x = await createTenant(t);
    await x.api
      .patch(`/api/v2/sites/${x.siteName}`)
      .send({ title: 'Demo & Co', settings: { contacts: { notifyEmails: ['team@demo.test', 'owner@demo.test'] } } })
      .expect(200);
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  it('mails every notify address, Reply-To the sender, with the message escaped in HTML', async () => {
    await request(t.server)
      .post(url(x))
      .send({
        name: 'Eve <b>Bold</b> "Q"',
        email: 'Eve@Example.com',
        subject: 'Hi <script>',
        company: 'ACME & Sons',
        message: 'Line one <script>alert(1)</script>\nLine two & more',
      })
      .expect(201);
    const mails = await smtp.waitFor(2);
    expect(mails.map((m) => m.to).sort()).toEqual([['owner@demo.test'], ['team@demo.test']]);
    for (const mail of mails) {
      const { parsed } = mail;
      expect(parsed.to && !Array.isArray(parsed.to) ? parsed.to.text : null).toBe('team@demo.test, owner@demo.test');
      expect(parsed.from?.value).toEqual([{ address: 'no-reply@sitebase.test', name: 'Sitebase' }]);
      expect(parsed.replyTo?.value).toEqual([{ address: 'eve@example.com', name: 'Eve <b>Bold</b> "Q"' }]);
      expect(parsed.subject).toBe('New message from Eve <b>Bold</b> "Q" on Demo & Co: Hi <script>');
      const html = String(parsed.html);
      expect(html).toContain('Line one &lt;script&gt;alert(1)&lt;/script&gt;<br />\nLine two &amp; more');
      expect(html).toContain('<strong>Eve &lt;b&gt;Bold&lt;/b&gt; &#34;Q&#34;</strong> &lt;eve@example.com&gt;');
      expect(html).toContain('ACME &amp; Sons');
      expect(html).not.toMatch(/<script|<b>/);
      expect(parsed.text).toContain('Line one <script>alert(1)</script>\nLine two & more');
      expect(parsed.text).toContain('Company: ACME & Sons');
    }
    const contact = await t.db.getRepository(ContactEntity).findOneByOrFail({ siteId: x.siteId });
    const recorded = await t.db.getRepository(EmailMessageEntity).findBy({ siteId: x.siteId });
    expect(recorded.map((m) => [m.recipient, m.templateType, m.tags]).sort()).toEqual([
      ['owner@demo.test', 'contacts.received', ['contacts']],
      ['team@demo.test', 'contacts.received', ['contacts']],
    ]);
    expect(recorded[0].text).toContain(contact.createdAt.toISOString());
    // Delivery records email.sent per message: to the team's address, never the sender's.
    const sent = await eventually(async () => {
      const events = (await eventsOf(t, x)).filter((e) => e.name === 'email.sent');
      return events.length === 2 ? events : undefined;
    });
    expect(sent.map((e) => e.payload.to).sort()).toEqual(['owner@demo.test', 'team@demo.test']);
    expect(JSON.stringify(sent)).not.toContain('eve@example.com');
  });

  it('a notification that fails keeps the message: the mail is rolled back to a savepoint and logged', async () => {
    const email = t.app.get(EmailService);
    // The mail fails after a statement of its own failed (the transaction would be aborted).
    const send = jest.spyOn(email, 'send').mockImplementationOnce(async (em) => {
      await em.query('SELECT 1 / 0');
      return [];
    });
    const after = await lastEventId(t);
    const before = await t.db.getRepository(EmailMessageEntity).countBy({ siteId: x.siteId });
    let calls: number | undefined;
    try {
      await request(t.server)
        .post(url(x))
        .send({ name: 'Bob', email: 'bob@example.com', message: 'Still here?' })
        .expect(201);
    } finally {
      calls = send.mock.calls.length;
      send.mockRestore();
    }
    expect(calls).toBe(1);
    expect(await t.db.getRepository(ContactEntity).countBy({ siteId: x.siteId, email: 'bob@example.com' })).toBe(1);
    expect((await eventsOf(t, x, after)).map((e) => e.name)).toEqual(['contact.created']);
    expect(await t.db.getRepository(EmailMessageEntity).countBy({ siteId: x.siteId })).toBe(before);
    const contact = await t.db.getRepository(ContactEntity).findOneByOrFail({ email: 'bob@example.com' });
    expect(logged.map((l) => l.msg)).toContainEqual(
      `Contact ${contact.id} of site ${x.siteName} was stored, but its notification mail failed: division by zero`,
    );
  });
});

describe('rate limit of anonymous senders (RATE_LIMIT_PUBLIC_MAX=3)', () => {
  let t: TestApp;
  let x: Tenant;

  beforeAll(async () => {
    // A database of its own: the block would otherwise be shared with other files' apps.
    t = await startApp({
      databaseUrl: await createFreshDatabase('contactsrate'),
      env: { RATE_LIMIT_PUBLIC_MAX: '3', JOBS_ENABLED: 'false' },
    });
    x = await createTenant(t);
  });
  afterAll(() => t.close());

  it('the 4th message of a client in the window is a 429 with Retry-After and is not stored; a key is not limited by IP', async () => {
    const send = () => request(t.server).post(url(x)).send({ name: 'N', email: 'n@example.com', message: 'M' });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await send()).status);
    expect(statuses).toEqual([201, 201, 201]);
    const limited = await send();
    const retryAfter = Number(limited.headers['retry-after']);
    expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);
    expectExactProblem(limited, 429, 'rate_limited', 'Too many requests', `Retry after ${retryAfter} s`);
    // The honeypot does not get around it either.
    expectProblem(
      await request(t.server).post(url(x)).send({ name: 'N', email: 'n@example.com', message: 'M', website: 'spam' }),
      429,
      'rate_limited',
    );
    expect(await t.db.getRepository(ContactEntity).countBy({ siteId: x.siteId })).toBe(3);
    await x.api.post(url(x)).send({ name: 'Own backend', email: 'n@example.com', message: 'M' }).expect(201);
    expect(await t.db.getRepository(ContactEntity).countBy({ siteId: x.siteId })).toBe(4);
  });
});
