import request from 'supertest';
import { MaintenanceService } from '../../src/common/maintenance.service';
import { eventually, startApp, TestApp } from '../support/app';
import { createFreshDatabase } from '../support/databases';
import { eventsOf } from '../support/events';
import { expectProblem } from '../support/problem';
import { startSmtpSink, SmtpSink } from '../support/smtp';
import { createTenant, Tenant } from '../support/tenant';
import {
  campaignReaches,
  get,
  listUnsubscribe,
  listWith,
  makeCampaign,
  pathOf,
  trackingUrls,
} from './campaign-fixtures';
import { nl } from './newsletter-fixtures';

const CONTENT =
  '<h1>Hi {{ subscriber.name }}</h1><p>For {{ subscriber.email }} ({{ subscriber.attributes.plan }})</p>' +
  '<p><a href="https://blog.example/one?a=1&amp;b=2">One</a> <a href="https://blog.example/two">Two</a></p>';

describe('newsletter campaigns: delivery, tracking, statistics', () => {
  let smtp: SmtpSink;
  let t: TestApp;
  let a: Tenant;
  let b: Tenant;

  beforeAll(async () => {
    smtp = await startSmtpSink();
    t = await startApp({
      databaseUrl: await createFreshDatabase('campaigns'),
      env: { SMTP_URL: smtp.url, NEWSLETTER_MACHINE_WINDOW_SECONDS: '2' },
    });
    [a, b] = await Promise.all([createTenant(t), createTenant(t)]);
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  describe('the resource', () => {
    it('creates a draft (201, Location, ETag), reads it by id and slug, lists it', async () => {
      const list = await listWith(a, 'Readers', []);
      const res = await a.api
        .post(nl(a, '/campaigns'))
        .send({ name: 'November digest', subject: 'News', contentHtml: '<p>x</p>', listIds: [list] })
        .expect(201);
      expect(res.headers.location).toMatch(
        new RegExp(`/api/v2/sites/${a.siteName}/newsletter/campaigns/${res.body.id}$`),
      );
      expect(res.headers.etag).toBe(`"${res.body.id}-1"`);
      expect(res.body).toEqual({
        id: expect.any(Number),
        name: 'November digest',
        slug: 'november-digest',
        subject: 'News',
        previewText: '',
        fromName: null,
        fromAddress: null,
        replyTo: null,
        contentHtml: '<p>x</p>',
        templateId: null,
        listIds: [list],
        attributeFilter: null,
        status: 'draft',
        scheduledAt: null,
        startedAt: null,
        sentAt: null,
        canceledAt: null,
        counts: { audience: null, sent: 0, delivered: 0, failed: 0, uniqueOpens: 0, uniqueClicks: 0, unsubscribes: 0 },
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      const [row] = await t.db.query('SELECT status, slug, site_id FROM newsletter_campaigns WHERE id = $1', [
        res.body.id,
      ]);
      expect(row).toEqual({ status: 'draft', slug: 'november-digest', site_id: String(a.siteId) });
      expect((await a.api.get(nl(a, '/campaigns/november-digest')).expect(200)).body.id).toBe(res.body.id);
      expect((await a.api.get(nl(a, `/campaigns/${res.body.id}`)).expect(200)).body.slug).toBe('november-digest');
      const page = await a.api.get(nl(a, '/campaigns?status=draft&limit=1')).expect(200);
      expect(page.body.data.map((c: { id: number }) => c.id)).toEqual([res.body.id]);
      expect(page.body.pagination.limit).toBe(1);
      // A second campaign of the same name gets the next slug; a taken explicit slug is a 409.
      expect((await makeCampaign(a, { name: 'November digest' })).slug).toBe('november-digest-2');
      expectProblem(
        await a.api.post(nl(a, '/campaigns')).send({ name: 'X', slug: 'november-digest' }),
        409,
        'duplicate_slug',
      );
    });

    it('edits with If-Match (stale: 412), validates (400) and keeps other sites out (401, 404)', async () => {
      const c = await makeCampaign(a, { name: 'Edits' });
      const ok = await a.api
        .patch(nl(a, `/campaigns/${c.id}`))
        .set('If-Match', `"${c.id}-1"`)
        .send({ subject: 'S2' });
      expect([ok.status, ok.body.subject, ok.headers.etag]).toEqual([200, 'S2', `"${c.id}-2"`]);
      expectProblem(
        await a.api
          .patch(nl(a, `/campaigns/${c.id}`))
          .set('If-Match', `"${c.id}-1"`)
          .send({ subject: 'S3' }),
        412,
        'precondition_failed',
      );
      const bad = await a.api.patch(nl(a, `/campaigns/${c.id}`)).send({ contentHtml: '{% if %}', listIds: [0] });
      expectProblem(bad, 400, 'validation_failed');
      expect(bad.body.errors.map((e: { path: string }) => e.path)).toContain('listIds');
      const liquid = await a.api.patch(nl(a, `/campaigns/${c.id}`)).send({ contentHtml: '{% if %}' });
      expectProblem(liquid, 400, 'validation_failed');
      expect(liquid.body.errors[0].path).toBe('contentHtml');
      const otherList = await listWith(b, 'Theirs', []);
      expectProblem(
        await a.api.patch(nl(a, `/campaigns/${c.id}`)).send({ listIds: [otherList] }),
        400,
        'validation_failed',
      );
      expectProblem(await a.api.post(nl(a, '/campaigns')).send({ name: 'x', unknown: 1 }), 400, 'validation_failed');
      expect((await request(t.server).get(nl(a, '/campaigns'))).status).toBe(401);
      expectProblem(await b.api.get(nl(b, `/campaigns/${c.id}`)), 404, 'not_found');
      expectProblem(await b.api.patch(nl(b, `/campaigns/${c.id}`)).send({ subject: 'x' }), 404, 'not_found');
      expectProblem(await b.api.delete(nl(b, `/campaigns/${c.id}`)), 404, 'not_found');
      const [row] = await t.db.query('SELECT subject, version FROM newsletter_campaigns WHERE id = $1', [c.id]);
      expect(row).toEqual({ subject: 'S2', version: 2 });
    });

    it('refuses forbidden moves with 409 and changes nothing; an incomplete campaign cannot be scheduled (400)', async () => {
      const c = await makeCampaign(a, { name: 'Moves' });
      expectProblem(
        await a.api.patch(nl(a, `/campaigns/${c.id}`)).send({ status: 'paused' }),
        409,
        'transition_forbidden',
      );
      expectProblem(
        await a.api.patch(nl(a, `/campaigns/${c.id}`)).send({ status: 'sending' }),
        409,
        'transition_forbidden',
      );
      const incomplete = await a.api.patch(nl(a, `/campaigns/${c.id}`)).send({ status: 'scheduled' });
      expectProblem(incomplete, 400, 'validation_failed');
      expect(incomplete.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['contentHtml', 'listIds']);
      const canceled = await a.api
        .patch(nl(a, `/campaigns/${c.id}`))
        .send({ status: 'canceled' })
        .expect(200);
      expect(canceled.body).toEqual(expect.objectContaining({ status: 'canceled', canceledAt: expect.any(String) }));
      expectProblem(
        await a.api.patch(nl(a, `/campaigns/${c.id}`)).send({ status: 'draft' }),
        409,
        'transition_forbidden',
      );
      expectProblem(
        await a.api.patch(nl(a, `/campaigns/${c.id}`)).send({ subject: 'late' }),
        409,
        'campaign_not_editable',
      );
      const [row] = await t.db.query('SELECT status, subject FROM newsletter_campaigns WHERE id = $1', [c.id]);
      expect(row).toEqual({ status: 'canceled', subject: 'Hello {{ subscriber.name }}' });
      await a.api.delete(nl(a, `/campaigns/${c.id}`)).expect(204);
      expect(await t.db.query('SELECT 1 FROM newsletter_campaigns WHERE id = $1', [c.id])).toEqual([]);
    });

    it('sends a test copy to a few addresses (admin route)', async () => {
      const list = await listWith(a, 'Test-send list', []);
      const c = await makeCampaign(a, { name: 'Tested', subject: 'Preview me', contentHtml: CONTENT, listIds: [list] });
      smtp.received.length = 0;
      const res = await a.api
        .post(nl(a, `/campaigns/${c.id}/test-send`))
        .send({ emails: ['Editor@Example.com'] })
        .expect(200);
      expect(res.body).toEqual({ queued: 1 });
      const [mail] = await smtp.waitFor(1);
      expect(mail.to).toEqual(['editor@example.com']);
      expect(mail.parsed.subject).toBe('[Test] Preview me');
      expect(mail.raw).not.toMatch(/track\/(open|click)/);
      expectProblem(
        await a.api
          .post(nl(a, `/campaigns/${c.id}/test-send`))
          .send({ emails: ['1@x.io', '2@x.io', '3@x.io', '4@x.io', '5@x.io', '6@x.io'] }),
        400,
        'validation_failed',
      );
      const [n] = await t.db.query(
        'SELECT count(*)::int AS n FROM newsletter_campaign_recipients WHERE campaign_id = $1',
        [c.id],
      );
      expect(n.n).toBe(0);
    });
  });

  describe('a send to two overlapping lists', () => {
    let campaignId: number;
    const byAddress = new Map<string, import('../support/smtp').ReceivedMail>();

    beforeAll(async () => {
      const one = await listWith(a, 'One', ['ann@example.com', 'bob@example.com', 'cat@example.com']);
      const two = await listWith(a, 'Two', [
        'bob@example.com',
        'cat@example.com',
        'dan@example.com',
        'eve@example.com',
      ]);
      // Eve bounced earlier: she is not mailed.
      await t.db.query(
        `UPDATE newsletter_subscriptions SET deliverability = 'bounced' WHERE site_id = $1 AND email = $2`,
        [a.siteId, 'eve@example.com'],
      );
      await t.db.query(
        `UPDATE newsletter_subscriptions SET name = 'Ann', attributes = '{"plan":"pro"}' WHERE site_id = $1 AND email = $2`,
        [a.siteId, 'ann@example.com'],
      );
      const c = await makeCampaign(a, {
        name: 'Overlap',
        subject: 'Hi {{ subscriber.name }}',
        contentHtml: CONTENT,
        listIds: [one, two],
      });
      campaignId = c.id;
      smtp.received.length = 0;
      const scheduled = await a.api
        .patch(nl(a, `/campaigns/${c.id}`))
        .send({ status: 'scheduled' })
        .expect(200);
      expect(scheduled.body).toEqual(expect.objectContaining({ status: 'scheduled', scheduledAt: expect.any(String) }));
      await campaignReaches(a, c.id, 'sent');
      const mails = await smtp.waitFor(4);
      for (const m of mails) for (const to of m.to) byAddress.set(to, m);
    });

    it('mails each active, deliverable address once, rendered for them, with List-Unsubscribe', async () => {
      await new Promise((r) => setTimeout(r, 500));
      expect(smtp.received.flatMap((m) => m.to).sort()).toEqual([
        'ann@example.com',
        'bob@example.com',
        'cat@example.com',
        'dan@example.com',
      ]);
      const ann = byAddress.get('ann@example.com')!;
      expect(ann.parsed.subject).toBe('Hi Ann');
      expect(ann.parsed.html).toContain('For ann@example.com (pro)');
      const { url, post } = listUnsubscribe(ann);
      expect(url).toMatch(/\/newsletter\/unsubscribe\?token=m\./);
      expect(post).toBe('List-Unsubscribe=One-Click');
      const { clicks } = trackingUrls(ann);
      expect(clicks).toHaveLength(2);
      const rows = await t.db.query(
        'SELECT count(*)::int AS n FROM newsletter_campaign_recipients WHERE campaign_id = $1',
        [campaignId],
      );
      expect(rows[0].n).toBe(4);
      const res = await a.api.get(nl(a, `/campaigns/${campaignId}`)).expect(200);
      expect(res.body).toEqual(
        expect.objectContaining({ status: 'sent', sentAt: expect.any(String), startedAt: expect.any(String) }),
      );
      expect(res.body.counts).toEqual(expect.objectContaining({ audience: 4, sent: 4 }));
      const events = (await eventsOf(t, a)).filter(
        (e) => e.name.startsWith('newsletter.campaign.') && (e.payload as { id: number }).id === campaignId,
      );
      expect(events.map((e) => e.name)).toEqual(['newsletter.campaign.scheduled', 'newsletter.campaign.sent']);
      expect(events[1].payload).toEqual({
        id: campaignId,
        slug: 'overlap',
        status: 'sent',
        scheduledAt: expect.any(String),
        sent: 4,
      });
    });

    it('counts opens and clicks (machines flagged), follows links, and one-click unsubscribes', async () => {
      const ann = trackingUrls(byAddress.get('ann@example.com')!);
      const bob = trackingUrls(byAddress.get('bob@example.com')!);
      const cat = trackingUrls(byAddress.get('cat@example.com')!);
      // Within seconds of delivery: a machine's (prefetch).
      await get(t, cat.open).expect(200);
      await new Promise((r) => setTimeout(r, 2100));
      const pixel = await get(t, ann.open).expect(200);
      expect(pixel.headers['content-type']).toBe('image/gif');
      expect(pixel.body).toHaveLength(42);
      await request(t.server).post(ann.open).set('User-Agent', 'Thunderbird').expect(204);
      await get(
        t,
        bob.open,
        'Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)',
      ).expect(200);
      const followed = await get(t, ann.clicks[0]).expect(302);
      expect(followed.headers.location).toBe('https://blog.example/one?a=1&b=2');
      const posted = await request(t.server).post(ann.clicks[1]).expect(200);
      expect(posted.body).toEqual({ url: 'https://blog.example/two' });
      // Forged, altered, and another site's path: 404, nothing stored.
      await get(t, ann.open.replace(/\.[^./]+$/, '.AAAAAAAAAAAAAAAAAAAAAA')).expect(404);
      await get(t, ann.open.replace(a.siteName, b.siteName)).expect(404);
      await request(t.server).post(nl(a, '/track/click/k.1.2.3.nope')).expect(404);

      const events = await t.db.query(
        `SELECT s.email, e.kind, e.link_index, e.machine, e.machine_reason FROM newsletter_tracking_events e
           JOIN newsletter_subscriptions s ON s.id = e.subscription_id WHERE e.campaign_id = $1 ORDER BY e.id`,
        [campaignId],
      );
      expect(events).toEqual([
        {
          email: 'cat@example.com',
          kind: 'open',
          link_index: null,
          machine: true,
          machine_reason: 'soon_after_delivery',
        },
        { email: 'ann@example.com', kind: 'open', link_index: null, machine: false, machine_reason: null },
        { email: 'ann@example.com', kind: 'open', link_index: null, machine: false, machine_reason: null },
        {
          email: 'bob@example.com',
          kind: 'open',
          link_index: null,
          machine: true,
          machine_reason: 'google_image_proxy',
        },
        { email: 'ann@example.com', kind: 'click', link_index: 0, machine: false, machine_reason: null },
        { email: 'ann@example.com', kind: 'click', link_index: 1, machine: false, machine_reason: null },
      ]);

      // One-click unsubscribe (RFC 8058) from Dan's List-Unsubscribe header.
      const dan = listUnsubscribe(byAddress.get('dan@example.com')!);
      await request(t.server).post(pathOf(dan.url)).type('form').send('List-Unsubscribe=One-Click').expect(200);
      const memberships = await t.db.query(
        `SELECT m.status FROM newsletter_memberships m JOIN newsletter_subscriptions s ON s.id = m.subscription_id
          WHERE s.site_id = $1 AND s.email = 'dan@example.com'`,
        [a.siteId],
      );
      expect(memberships).toEqual([{ status: 'unsubscribed' }]);
    });

    it('answers statistics equal to what happened, from the counters', async () => {
      await eventually(async () => {
        const [s] = await t.db.query('SELECT delivered FROM newsletter_campaign_stats WHERE campaign_id = $1', [
          campaignId,
        ]);
        return s.delivered === 4 ? true : undefined;
      });
      const res = await a.api.get(nl(a, `/statistics?campaignId=${campaignId}`)).expect(200);
      expect(res.body.campaigns).toEqual([
        {
          id: campaignId,
          name: 'Overlap',
          status: 'sent',
          startedAt: expect.any(String),
          sentAt: expect.any(String),
          sent: 4,
          delivered: 4,
          failed: 0,
          bounces: 0,
          complaints: 0,
          opens: { unique: 1, total: 2, machineUnique: 2, machineTotal: 2 },
          clicks: { unique: 1, total: 2, machineUnique: 0, machineTotal: 0 },
          unsubscribes: 1,
          rates: { delivery: 1, open: 0.25, click: 0.25, clickToOpen: 1, unsubscribe: 0.25, bounce: 0, complaint: 0 },
          topLinks: [
            { url: 'https://blog.example/one?a=1&b=2', clicks: 1, machineClicks: 0 },
            { url: 'https://blog.example/two', clicks: 1, machineClicks: 0 },
          ],
        },
      ]);
      const withMachines = await a.api
        .get(nl(a, `/statistics?campaignId=${campaignId}&includeMachines=true`))
        .expect(200);
      expect(withMachines.body.campaigns[0].rates.open).toBe(0.75);
      const site = await a.api.get(nl(a, '/statistics')).expect(200);
      // Lists One (3) and Two (4) of this file's sends, plus Dan's leave; empty lists count nothing.
      expect(site.body.subscribers).toEqual({ pending: 0, active: 6, unsubscribed: 1 });
      const today = new Date().toISOString().slice(0, 10);
      expect(site.body.growth).toEqual([{ day: today, joined: 7, unsubscribed: 1 }]);
      expect(site.body.campaigns.map((c: { id: number }) => c.id)).toContain(campaignId);
      expectProblem(await a.api.get(nl(a, '/statistics?campaignId=0')), 400, 'validation_failed');
      expectProblem(await b.api.get(nl(b, `/statistics?campaignId=${campaignId}`)), 404, 'not_found');
      expectProblem(
        await a.api.get(nl(a, '/statistics?from=2030-01-01T00:00:00Z&to=2029-01-01T00:00:00Z')),
        400,
        'validation_failed',
      );
      expect((await request(t.server).get(nl(a, '/statistics'))).status).toBe(401);
    });

    it('a user’s erasure removes their tracking rows', async () => {
      const [{ id }] = await t.db.query(
        `SELECT id FROM newsletter_subscriptions WHERE site_id = $1 AND email = 'ann@example.com'`,
        [a.siteId],
      );
      await a.api.delete(nl(a, `/subscriptions/${id}`)).expect(204);
      const left = await t.db.query(
        'SELECT count(*)::int AS n FROM newsletter_tracking_events WHERE subscription_id = $1',
        [id],
      );
      expect(left[0].n).toBe(0);
      // The counters are aggregates: they stay.
      const [s] = await t.db.query('SELECT unique_opens FROM newsletter_campaign_stats WHERE campaign_id = $1', [
        campaignId,
      ]);
      expect(s.unique_opens).toBe(1);
    });

    it('a burst for one recipient (opens and clicks of both links at once) counts every event once and each first once', async () => {
      const dan = trackingUrls(byAddress.get('dan@example.com')!);
      const counters = async () => {
        const [stats] = await t.db.query(
          `SELECT opens, unique_opens, clicks, unique_clicks, machine_opens FROM newsletter_campaign_stats WHERE campaign_id = $1`,
          [campaignId],
        );
        const links = await t.db.query(
          'SELECT link_index, clicks FROM newsletter_campaign_links WHERE campaign_id = $1 ORDER BY link_index',
          [campaignId],
        );
        const [{ n }] = await t.db.query(
          'SELECT count(*)::int AS n FROM newsletter_tracking_events WHERE campaign_id = $1',
          [campaignId],
        );
        return { stats, links, events: n };
      };
      const before = await counters();
      const ua = 'Mozilla/5.0 (X11; Linux x86_64) Firefox/130.0';
      const answers = await Promise.all([
        ...[1, 2, 3].map(() => request(t.server).post(dan.open).set('User-Agent', ua)),
        ...[1, 2].map(() => request(t.server).post(dan.clicks[0]).set('User-Agent', ua)),
        request(t.server).post(dan.clicks[1]).set('User-Agent', ua),
      ]);
      expect(answers.map((r) => r.status)).toEqual([204, 204, 204, 200, 200, 200]);
      const after = await counters();
      expect(after.events - before.events).toBe(6);
      expect(after.stats).toEqual({
        opens: before.stats.opens + 3,
        unique_opens: before.stats.unique_opens + 1,
        clicks: before.stats.clicks + 3,
        unique_clicks: before.stats.unique_clicks + 1,
        machine_opens: before.stats.machine_opens,
      });
      expect(after.links).toEqual([
        { link_index: 0, clicks: before.links[0].clicks + 2 },
        { link_index: 1, clicks: before.links[1].clicks + 1 },
      ]);
      const [firsts] = await t.db.query(
        `SELECT r.opened_at IS NOT NULL AS opened, r.clicked_at IS NOT NULL AS clicked, r.machine_opened_at IS NULL AS no_machine
           FROM newsletter_campaign_recipients r JOIN newsletter_subscriptions s ON s.id = r.subscription_id
          WHERE r.campaign_id = $1 AND s.email = 'dan@example.com'`,
        [campaignId],
      );
      expect(firsts).toEqual({ opened: true, clicked: true, no_machine: true });
    });

    it('raw events older than NEWSLETTER_TRACKING_RETENTION_DAYS go; the statistics answer stays the same', async () => {
      const statistics = async () => {
        const human = await a.api.get(nl(a, `/statistics?campaignId=${campaignId}`)).expect(200);
        const all = await a.api.get(nl(a, `/statistics?campaignId=${campaignId}&includeMachines=true`)).expect(200);
        return [human.body.campaigns, all.body.campaigns];
      };
      const events = async () =>
        (
          await t.db.query('SELECT id FROM newsletter_tracking_events WHERE campaign_id = $1 ORDER BY id', [campaignId])
        ).map((r: { id: string }) => Number(r.id));
      const before = await statistics();
      const ids = await events();
      expect(ids.length).toBeGreaterThan(5);
      // All but the newest are older than the window.
      const days = t.configs.newsletter.NEWSLETTER_TRACKING_RETENTION_DAYS;
      await t.db.query(
        `UPDATE newsletter_tracking_events SET created_at = now() - make_interval(days => $2 + 1)
          WHERE campaign_id = $1 AND id < $3`,
        [campaignId, days, ids[ids.length - 1]],
      );
      const outcomes = await t.app.get(MaintenanceService).cleanup();
      expect(outcomes.find((o) => o.rule === 'newsletter.tracking-events')).toMatchObject({
        removed: ids.length - 1,
        capped: false,
      });
      expect(await events()).toEqual([ids[ids.length - 1]]);
      expect(await statistics()).toEqual(before);
      // A recipient who opened before still counts once: the first open is kept on the recipient.
      const dan = trackingUrls(byAddress.get('dan@example.com')!);
      await request(t.server)
        .post(dan.open)
        .set('User-Agent', 'Mozilla/5.0 (X11; Linux x86_64) Firefox/130.0')
        .expect(204);
      const [after] = await statistics();
      expect(after[0].opens).toEqual({ ...before[0][0].opens, total: before[0][0].opens.total + 1 });
    });
  });
});
