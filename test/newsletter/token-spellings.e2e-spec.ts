import request from 'supertest';
import { eventually } from '../support/app';
import { snapshotDatabase } from '../support/db-snapshot';
import { alternateSpellings, signatureOf, withSignature } from '../support/token-spellings';
import { withTenants } from '../support/tenant';
import { campaignReaches, listWith, makeCampaign } from './campaign-fixtures';
import { linksMailedTo, makeList, nl, subscribe } from './newsletter-fixtures';

/**
 * docs/security.md, "Signed tokens: one spelling": a token whose signature is spelled otherwise
 * (same bytes once base64url-decoded) is answered like a forged one on every public route that
 * takes one, and records nothing; the canonical spelling still works afterwards.
 */
describe('newsletter tokens: one spelling each', () => {
  const ctx = withTenants(1);
  const anon = () => request(ctx.t.server);

  /** The other spellings a path segment can carry (the shape a token parameter accepts). */
  const segmentSpellings = (token: string) =>
    alternateSpellings(signatureOf(token))
      .filter((sig) => /^[A-Za-z0-9_-]{22}$/.test(sig))
      .map((sig) => withSignature(token, sig));
  /** Every other spelling, for a token sent in a body. */
  const bodySpellings = (token: string) => alternateSpellings(signatureOf(token)).map((s) => withSignature(token, s));
  /** A well-formed token of the same shape that no one signed. */
  const forgedLike = (token: string) => withSignature(token, 'A'.repeat(22));

  const answer = (res: request.Response) => ({ status: res.status, code: (res.body as { code?: string })?.code });

  it('confirm, preferences and unsubscribe: other spellings answer like a forged token and change nothing', async () => {
    const [a] = ctx.tenants;
    const list = await makeList(a, { name: 'Spellings' });
    const open = await makeList(a, { name: 'Spellings, single opt-in', doubleOptIn: false });
    await subscribe(ctx.t, a, { email: 'spell@example.com', lists: [list.id] }).expect(202);
    await subscribe(ctx.t, a, { email: 'spell-2@example.com', lists: [open.id] }).expect(202);
    const { confirm } = await linksMailedTo(ctx.t, a, 'spell@example.com');
    const { manage } = await linksMailedTo(ctx.t, a, 'spell-2@example.com');
    expect([confirm, manage]).toEqual([expect.any(String), expect.any(String)]);
    const confirmSpellings = segmentSpellings(confirm!);
    expect(confirmSpellings).toHaveLength(15);

    const before = await snapshotDatabase(ctx.t.db);
    const forgedConfirm = answer(await anon().get(nl(a, `/confirm/${forgedLike(confirm!)}`)));
    expect(forgedConfirm).toEqual({ status: 400, code: 'invalid_token' });
    for (const other of confirmSpellings)
      expect(answer(await anon().get(nl(a, `/confirm/${other}`)))).toEqual(forgedConfirm);

    const forgedPage = await anon()
      .get(nl(a, `/preferences/${forgedLike(manage!)}`))
      .set('Accept', 'text/html');
    expect(forgedPage.status).toBe(400);
    for (const other of segmentSpellings(manage!)) {
      const page = await anon()
        .get(nl(a, `/preferences/${other}`))
        .set('Accept', 'text/html');
      expect([page.status, page.text]).toEqual([forgedPage.status, forgedPage.text]);
    }

    const forgedUnsubscribe = answer(
      await anon()
        .post(nl(a, '/unsubscribe'))
        .send({ token: forgedLike(manage!) }),
    );
    expect(forgedUnsubscribe).toEqual({ status: 400, code: 'invalid_token' });
    const unsubscribeSpellings = bodySpellings(manage!);
    expect(unsubscribeSpellings.length).toBeGreaterThanOrEqual(20);
    for (const other of unsubscribeSpellings) {
      const res = await anon().post(nl(a, '/unsubscribe')).send({ token: other });
      // Spellings with characters outside the alphabet fail the token's shape first: a 400 too.
      expect(res.status).toBe(400);
      if (/^[A-Za-z0-9_-]{22}$/.test(signatureOf(other))) expect(answer(res)).toEqual(forgedUnsubscribe);
    }
    expect(await snapshotDatabase(ctx.t.db)).toEqual(before);

    // The canonical spellings still work, and their per-person answers are never kept by a cache.
    const worked = [
      await anon()
        .get(nl(a, `/preferences/${manage}`))
        .set('Accept', 'text/html')
        .expect(200),
      await anon()
        .get(nl(a, `/confirm/${confirm}`))
        .expect(200),
      await anon().post(nl(a, '/unsubscribe')).send({ token: manage }).expect(200),
    ];
    for (const res of worked) expect(res.headers['cache-control']).toBe('private, no-store');
  });

  it('open and click: other spellings are a 404 like a forged token and record no open or click', async () => {
    const [a] = ctx.tenants;
    const listId = await listWith(a, 'Spelling readers', ['reader-spell@example.com']);
    const c = await makeCampaign(a, {
      name: 'Spelling campaign',
      subject: 'Hello',
      contentHtml: '<p><a href="https://blog.example/spelling">Read</a></p>',
      listIds: [listId],
    });
    const got = await a.api.get(nl(a, `/campaigns/${c.id}`)).expect(200);
    await a.api
      .patch(nl(a, `/campaigns/${c.id}`))
      .set('If-Match', got.headers.etag)
      .send({ status: 'scheduled' })
      .expect(200);
    // A campaign copy stores no body: its answer renders it, tracking links and all.
    const id = await eventually(async () => {
      const rows: Array<{ id: string }> = await ctx.t.db.query(
        `SELECT id FROM email_messages WHERE site_id = $1 AND recipient = 'reader-spell@example.com'`,
        [a.siteId],
      );
      return rows[0]?.id;
    });
    const html = (await a.api.get(`/api/v2/sites/${a.siteName}/email/messages/${id}`).expect(200)).body.html as string;
    const open = /track\/open\/([^"]+)"/.exec(html)![1];
    const click = /track\/click\/([^"]+)"/.exec(html)![1];
    const events = async () =>
      Number(
        (await ctx.t.db.query('SELECT count(*) AS n FROM newsletter_tracking_events WHERE campaign_id = $1', [c.id]))[0]
          .n,
      );
    expect(await events()).toBe(0);
    // The send is over: nothing else moves while the snapshot is compared.
    await campaignReaches(a, c.id, 'sent');

    const before = await snapshotDatabase(ctx.t.db);
    const routes = [
      (token: string) => anon().post(nl(a, `/track/open/${token}`)),
      (token: string) => anon().get(nl(a, `/track/open/${token}`)),
    ];
    const clickRoutes = [
      (token: string) => anon().post(nl(a, `/track/click/${token}`)),
      (token: string) =>
        anon()
          .get(nl(a, `/track/click/${token}`))
          .redirects(0),
    ];
    for (const [token, sends] of [
      [open, routes],
      [click, clickRoutes],
    ] as const) {
      const spellings = segmentSpellings(token);
      expect(spellings).toHaveLength(15);
      for (const send of sends) {
        const forged = answer(await send(forgedLike(token)));
        expect(forged).toEqual({ status: 404, code: 'not_found' });
        for (const other of spellings) expect(answer(await send(other))).toEqual(forged);
      }
    }
    expect(await snapshotDatabase(ctx.t.db)).toEqual(before);
    expect(await events()).toBe(0);

    // The canonical tokens are counted.
    const opened = await anon()
      .post(nl(a, `/track/open/${open}`))
      .expect(204);
    expect(opened.headers['cache-control']).toBe('private, no-store');
    await anon()
      .post(nl(a, `/track/click/${click}`))
      .expect(200);
    expect(await events()).toBe(2);
  });
});
