import { eventually, startApp, TestApp } from '../support/app';
import { createFreshDatabase } from '../support/databases';
import { eventsOf } from '../support/events';
import { expectProblem } from '../support/problem';
import { startSmtpSink, SmtpSink } from '../support/smtp';
import { agent, createTenant, Tenant } from '../support/tenant';
import { campaignReaches, listWith, makeCampaign } from './campaign-fixtures';
import { nl } from './newsletter-fixtures';

/** Addresses `<prefix>-1@example.com` … */
const addresses = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${i + 1}@example.com`);

/** How many copies each address received, of mails whose subject is `subject`. */
function copies(smtp: SmtpSink, subject: string): Map<string, number> {
  const seen = new Map<string, number>();
  for (const m of smtp.received)
    if (m.parsed.subject === subject) for (const to of m.to) seen.set(to, (seen.get(to) ?? 0) + 1);
  return seen;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A send in progress: paused, resumed, canceled, and its job runner stopped and started again —
 * nobody is mailed twice or left out. The site's rate (120 a minute, batches of 2: one batch a
 * second) keeps the send slow enough to act on it midway.
 */
describe('newsletter campaigns: a send in progress', () => {
  let smtp: SmtpSink;
  let databaseUrl: string;
  let t: TestApp;
  let a: Tenant;
  const env = () => ({ SMTP_URL: smtp.url, NEWSLETTER_SEND_BATCH_SIZE: '2' });

  beforeAll(async () => {
    smtp = await startSmtpSink();
    databaseUrl = await createFreshDatabase('campaignsend');
    t = await startApp({ databaseUrl, env: env() });
    a = await createTenant(t);
    await a.api
      .patch(`/api/v2/sites/${a.siteName}`)
      .send({ settings: { newsletter: { sendRatePerMinute: 120 } } })
      .expect(200);
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  const recipients = async (id: number): Promise<number> =>
    (await t.db.query('SELECT count(*)::int AS n FROM newsletter_campaign_recipients WHERE campaign_id = $1', [id]))[0]
      .n;
  const campaignEvents = async (id: number) =>
    (await eventsOf(t, a))
      .filter((e) => e.name.startsWith('newsletter.campaign.') && (e.payload as { id: number }).id === id)
      .map((e) => e.name);
  const patch = (id: number, body: Record<string, unknown>) => a.api.patch(nl(a, `/campaigns/${id}`)).send(body);

  it('pause holds the rest, an edit while paused applies to the rest, resume finishes: each once', async () => {
    const list = await listWith(a, 'Paused list', addresses('p', 10));
    const c = await makeCampaign(a, {
      name: 'Pausable',
      subject: 'Pausable',
      contentHtml: '<p>Hi</p>',
      listIds: [list],
    });
    await patch(c.id, { status: 'scheduled' }).expect(200);
    await eventually(async () => (copies(smtp, 'Pausable').size >= 2 ? true : undefined));
    const paused = await patch(c.id, { status: 'paused' }).expect(200);
    expect(paused.body.status).toBe('paused');
    const held = await recipients(c.id);
    expect(held).toBeLessThan(10);
    await sleep(2500);
    expect(await recipients(c.id)).toBe(held);
    await eventually(async () => (copies(smtp, 'Pausable').size === held ? true : undefined));
    // Editable while paused; the rest get the new subject.
    await patch(c.id, { subject: 'Pausable, resumed' }).expect(200);
    expectProblem(await patch(c.id, { status: 'scheduled' }), 409, 'transition_forbidden');
    await patch(c.id, { status: 'sending' }).expect(200);
    await campaignReaches(a, c.id, 'sent');
    await eventually(async () =>
      copies(smtp, 'Pausable').size + copies(smtp, 'Pausable, resumed').size === 10 ? true : undefined,
    );
    const all = new Map([...copies(smtp, 'Pausable'), ...copies(smtp, 'Pausable, resumed')]);
    expect([...all.keys()].sort()).toEqual(addresses('p', 10).sort());
    expect([...all.values()].every((n) => n === 1)).toBe(true);
    expect(copies(smtp, 'Pausable, resumed').size).toBe(10 - held);
    expect(await campaignEvents(c.id)).toEqual([
      'newsletter.campaign.scheduled',
      'newsletter.campaign.paused',
      'newsletter.campaign.sent',
    ]);
  }, 60000);

  it('a send is paused then canceled: nobody else is mailed, and it cannot resume', async () => {
    const list = await listWith(a, 'Canceled list', addresses('c', 10));
    const c = await makeCampaign(a, {
      name: 'Cancelable',
      subject: 'Cancelable',
      contentHtml: '<p>Hi</p>',
      listIds: [list],
    });
    await patch(c.id, { status: 'scheduled' }).expect(200);
    await eventually(async () => (copies(smtp, 'Cancelable').size >= 2 ? true : undefined));
    // API.md §5: a send is canceled from paused, not while it runs.
    expectProblem(await patch(c.id, { status: 'canceled' }), 409, 'transition_forbidden');
    await patch(c.id, { status: 'paused' }).expect(200);
    const canceled = await patch(c.id, { status: 'canceled' }).expect(200);
    expect(canceled.body).toEqual(expect.objectContaining({ status: 'canceled', canceledAt: expect.any(String) }));
    const sent = await recipients(c.id);
    await sleep(2500);
    expect(await recipients(c.id)).toBe(sent);
    expect(sent).toBeLessThan(10);
    await eventually(async () => (copies(smtp, 'Cancelable').size === sent ? true : undefined));
    expectProblem(await patch(c.id, { status: 'sending' }), 409, 'transition_forbidden');
    const [row] = await t.db.query('SELECT status, recipient_count FROM newsletter_campaigns WHERE id = $1', [c.id]);
    expect(row).toEqual({ status: 'canceled', recipient_count: sent });
    expect(await campaignEvents(c.id)).toEqual([
      'newsletter.campaign.scheduled',
      'newsletter.campaign.paused',
      'newsletter.campaign.canceled',
    ]);
  }, 60000);

  it('the app stops mid-send and another starts on the same database: nobody twice, nobody left out', async () => {
    const list = await listWith(a, 'Restart list', addresses('r', 12));
    const c = await makeCampaign(a, {
      name: 'Restarted',
      subject: 'Restarted',
      contentHtml: '<p>Hi</p>',
      listIds: [list],
    });
    await patch(c.id, { status: 'scheduled' }).expect(200);
    await eventually(async () => (copies(smtp, 'Restarted').size >= 4 ? true : undefined));
    await t.close();
    const reader = await startApp({ databaseUrl, env: { ...env(), JOBS_ENABLED: 'false' } });
    const [stopped] = await reader.db.query('SELECT status, recipient_count FROM newsletter_campaigns WHERE id = $1', [
      c.id,
    ]);
    await reader.close();
    expect(stopped.status).toBe('sending');
    expect(stopped.recipient_count).toBeLessThan(12);
    t = await startApp({ databaseUrl, env: env() });
    a = { ...a, api: agent(t, a.key) };
    await campaignReaches(a, c.id, 'sent', 45000);
    await eventually(async () => (copies(smtp, 'Restarted').size === 12 ? true : undefined), 30000);
    await sleep(1000);
    const got = copies(smtp, 'Restarted');
    expect([...got.keys()].sort()).toEqual(addresses('r', 12).sort());
    expect([...got.values()].every((n) => n === 1)).toBe(true);
    expect(await recipients(c.id)).toBe(12);
  }, 120000);
});
