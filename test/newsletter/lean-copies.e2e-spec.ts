import { MaintenanceService } from '../../src/common/maintenance.service';
import { Clock } from '../../src/common/scheduling/clock';
import { EmailDeliveryJob } from '../../src/email/email-delivery.job';
import { eventually, startApp, TestApp } from '../support/app';
import { createFreshDatabase } from '../support/databases';
import { startSmtpSink, SmtpSink } from '../support/smtp';
import { createTenant, Tenant } from '../support/tenant';
import { campaignReaches, listUnsubscribe, listWith, makeCampaign, trackingUrls } from './campaign-fixtures';
import { nl } from './newsletter-fixtures';

/** About 30 KB of prose of varied words (as little compressible as real text), with the reader's name. */
function longContent(): string {
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
  const word = () => Array.from({ length: 3 + (next() % 7) }, () => String.fromCharCode(97 + (next() % 26))).join('');
  const paragraphs: string[] = [];
  while (paragraphs.join('').length < 30_000) paragraphs.push(`<p>${Array.from({ length: 60 }, word).join(' ')}.</p>`);
  return `<h1>Hello {{ subscriber.name }}</h1><p><a href="https://example.com/story">Read</a></p>${paragraphs.join('\n')}
<p><a href="{{ preferencesUrl }}">Preferences</a></p>`;
}

/**
 * A campaign copy is metadata (docs/newsletter.md, "Delivery"; docs/email.md, "What is stored"):
 * the row names the campaign and the subscriber and holds no body; the recipient gets the whole
 * personalised copy, rendered when it is sent; an operator's read renders it again, secrets as
 * placeholders; a copy whose campaign is gone fails with the reason instead of going out.
 */
describe('campaign copies store no body', () => {
  let smtp: SmtpSink;
  let t: TestApp;
  let a: Tenant;

  beforeAll(async () => {
    smtp = await startSmtpSink();
    t = await startApp({ databaseUrl: await createFreshDatabase('leancopies'), env: { SMTP_URL: smtp.url } });
    a = await createTenant(t);
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  it('records no per-recipient body; each recipient gets their own rendered copy; the answer renders it', async () => {
    const emails = ['lean-1@example.com', 'lean-2@example.com', 'lean-3@example.com'];
    const list = await listWith(a, 'Lean', emails);
    await t.db.query(
      `UPDATE newsletter_subscriptions SET name = 'Reader ' || split_part(email, '@', 1) WHERE site_id = $1`,
      [a.siteId],
    );
    const content = longContent();
    const c = await makeCampaign(a, {
      name: 'Lean',
      subject: 'Lean for {{ subscriber.name }}',
      contentHtml: content,
      listIds: [list],
    });
    await a.api
      .patch(nl(a, `/campaigns/${c.id}`))
      .send({ status: 'scheduled' })
      .expect(200);
    await campaignReaches(a, c.id, 'sent');
    const rows: Array<{
      id: string;
      recipient: string;
      subject: string;
      status: string;
      body_bytes: number;
      source: string;
      source_id: string;
      sealed: boolean;
      headers: unknown;
      sub: string;
    }> = await eventually(async () => {
      const found = await t.db.query(
        `SELECT m.id, m.recipient, m.subject, m.status, m.source, m.source_id,
                coalesce(octet_length(m.html), 0) + coalesce(octet_length(m.text), 0) AS body_bytes,
                m.sealed_secrets IS NOT NULL AS sealed, m.extra_headers AS headers, s.id AS sub
           FROM email_messages m JOIN newsletter_subscriptions s ON s.id = m.source_item_id
          WHERE m.site_id = $1 AND $2 = ANY(m.tags) ORDER BY m.recipient`,
        [a.siteId, `newsletter-campaign:${c.id}`],
      );
      return found.length === 3 && found.every((r: { status: string }) => r.status === 'sent') ? found : undefined;
    });
    // Metadata only: no body, no sealed value, no headers; the source names the campaign and the subscriber.
    expect(rows.map((r) => [r.recipient, r.body_bytes, r.sealed, r.headers, r.source, Number(r.source_id)])).toEqual(
      emails.map((e) => [e, 0, false, null, 'newsletter.campaign', c.id]),
    );
    expect(rows.map((r) => r.subject)).toEqual(emails.map((e) => `Lean for Reader ${e.split('@')[0]}`));

    // Each recipient got the whole copy, personalised, with working links.
    for (const email of emails) {
      const mail = smtp.received.find((m) => m.to.includes(email) && m.parsed.subject?.startsWith('Lean for'))!;
      const html = typeof mail.parsed.html === 'string' ? mail.parsed.html : '';
      expect(html).toContain(`Hello Reader ${email.split('@')[0]}`);
      expect(html.length).toBeGreaterThan(30_000);
      expect(mail.parsed.text!.length).toBeGreaterThan(20_000);
      expect(html).not.toContain('[redacted');
      expect(trackingUrls(mail).clicks).toHaveLength(1);
      const { url } = listUnsubscribe(mail);
      expect(url).toMatch(/\/newsletter\/unsubscribe\?token=m\./);
      expect(html).toMatch(/href="[^"]*\/newsletter\/preferences\/m\.[^"]+"/);
    }

    // The operator's read renders it again, its secrets as placeholders.
    const shown = await a.api.get(`/api/v2/sites/${a.siteName}/email/messages/${rows[0].id}`).expect(200);
    expect(shown.body).toMatchObject({ bodyStatus: 'rendered', bodyDroppedAt: null, subject: rows[0].subject });
    expect(shown.body.html).toContain(`Hello Reader lean-1`);
    expect(shown.body.html).toContain('href="[redacted:preferencesUrl]"');
    expect(shown.body.headers['List-Unsubscribe']).toBe('<[redacted:oneClickUnsubscribeUrl]>');
    expect(shown.body.text.length).toBeGreaterThan(20_000);
    // Another site's key does not read it.
    const b = await createTenant(t);
    await b.api.get(`/api/v2/sites/${b.siteName}/email/messages/${rows[0].id}`).expect(404);

    // Once the campaign is deleted its copies have no body to show.
    await a.api.delete(nl(a, `/campaigns/${c.id}`)).expect(204);
    const gone = await a.api.get(`/api/v2/sites/${a.siteName}/email/messages/${rows[0].id}`).expect(200);
    expect(gone.body).toMatchObject({ bodyStatus: 'unavailable', html: null, text: null, status: 'sent' });
  });

  it("the API's send cannot name a source: a tenant cannot have a campaign rendered to an address of its choice", async () => {
    const before = await t.db.query('SELECT count(*)::int AS n FROM email_messages');
    const res = await a.api
      .post(`/api/v2/sites/${a.siteName}/email/send`)
      .send({
        to: [{ email: 'stranger@example.com' }],
        templateType: 'newsletter.campaign',
        data: { subject: 'x', contentHtml: '', unsubscribeUrl: 'https://example.com/u' },
        source: { name: 'newsletter.campaign', id: 1, itemId: 1 },
      })
      .expect(400);
    expect(res.body.errors.map((e: { path: string }) => e.path)).toContain('source');
    expect(await t.db.query('SELECT count(*)::int AS n FROM email_messages')).toEqual(before);
  });

  it('a copy whose campaign was deleted before it was sent fails with the reason, and nothing is mailed', async () => {
    const [{ id }] = await t.db.query(
      `INSERT INTO email_messages (site_id, batch_id, recipient, recipient_kind, from_header, to_header, subject,
         tags, source, source_id, source_item_id)
       VALUES ($1, gen_random_uuid(), 'orphan@example.com', 'to', 'Sitebase <no-reply@localhost>',
               'orphan@example.com', 'Orphan', '{newsletter-campaign}', 'newsletter.campaign', 987654321, 1)
       RETURNING id`,
      [a.siteId],
    );
    await t.app.get(EmailDeliveryJob).run({ siteId: a.siteId, messageIds: [Number(id)] });
    const [row] = await t.db.query('SELECT status, error FROM email_messages WHERE id = $1', [id]);
    expect(row).toEqual({ status: 'failed', error: 'its body could not be made: its campaign was deleted' });
    expect(smtp.received.some((m) => m.to.includes('orphan@example.com'))).toBe(false);
  });

  it('a year after its send, its copies and recipient rows go; the campaign and its counters stay', async () => {
    const list = await listWith(a, 'Yearly', ['year-1@example.com', 'year-2@example.com']);
    const c = await makeCampaign(a, { name: 'Yearly', subject: 'Yearly', contentHtml: '<p>Hi</p>', listIds: [list] });
    await a.api
      .patch(nl(a, `/campaigns/${c.id}`))
      .send({ status: 'scheduled' })
      .expect(200);
    await campaignReaches(a, c.id, 'sent');
    const counters = async () => {
      const res = await a.api.get(nl(a, `/campaigns/${c.id}`)).expect(200);
      return res.body.counts as Record<string, unknown>;
    };
    const before = await eventually(async () => {
      const counts = await counters();
      return counts.delivered === 2 ? counts : undefined;
    });
    const rows = async () =>
      (
        await t.db.query(
          `SELECT (SELECT count(*)::int FROM newsletter_campaign_recipients WHERE campaign_id = $1) AS recipients,
                  (SELECT count(*)::int FROM email_messages WHERE $2 = ANY(tags)) AS copies`,
          [c.id, `newsletter-campaign:${c.id}`],
        )
      )[0] as { recipients: number; copies: number };
    const maintain = () => t.app.get(MaintenanceService).cleanup();
    jest.spyOn(t.app.get(Clock), 'now').mockReturnValue(new Date(Date.now() + 300 * 86_400_000));
    await maintain();
    expect(await rows()).toEqual({ recipients: 2, copies: 2 });
    jest.spyOn(t.app.get(Clock), 'now').mockReturnValue(new Date(Date.now() + 366 * 86_400_000));
    const outcomes = await maintain();
    const ours = outcomes.filter((o) => o.rule === 'newsletter.campaign-recipients' || o.rule === 'email.messages');
    expect(ours.map((o) => [o.rule, o.error])).toEqual([
      ['email.messages', undefined],
      ['newsletter.campaign-recipients', undefined],
    ]);
    expect(await rows()).toEqual({ recipients: 0, copies: 0 });
    expect(await counters()).toEqual(before);
    jest.restoreAllMocks();
  });
});
