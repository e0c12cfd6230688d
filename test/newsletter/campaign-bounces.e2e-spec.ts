import { eventually, startApp, TestApp } from '../support/app';
import { reportCopy } from '../support/bounces';
import { createFreshDatabase, freePort } from '../support/databases';
import { eventsOf, lastEventId } from '../support/events';
import { ReceivedMail, startSmtpSink, SmtpSink } from '../support/smtp';
import { createTenant, Tenant } from '../support/tenant';
import { campaignReaches, listWith, makeCampaign } from './campaign-fixtures';
import { nl } from './newsletter-fixtures';

const DOMAIN = 'bounces.sitebase.test';

/**
 * A campaign's bounces and complaints (docs/deliverability.md): a hard DSN and an ARF complaint
 * sent back over SMTP to the copies' VERP addresses mark the subscriptions, unsubscribe the
 * complainer, record the events, count in the campaign's statistics, and the next campaign to the
 * same list skips both addresses.
 */
describe('newsletter campaigns: bounces and complaints', () => {
  let smtp: SmtpSink;
  let t: TestApp;
  let a: Tenant;
  let port: number;

  beforeAll(async () => {
    smtp = await startSmtpSink();
    port = await freePort();
    t = await startApp({
      databaseUrl: await createFreshDatabase('campaignbounces'),
      env: {
        SMTP_URL: smtp.url,
        BOUNCE_DOMAIN: DOMAIN,
        BOUNCE_SMTP_PORT: String(port),
        BOUNCE_SMTP_HOST: '127.0.0.1',
      },
    });
    a = await createTenant(t);
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  const report = (name: string, mail: ReceivedMail) => reportCopy(port, name, mail);

  const copiesOf = (subject: string) => smtp.received.filter((m) => m.parsed.subject === subject);

  it('a hard bounce and a complaint: states, events, statistics, and the second campaign skips both', async () => {
    const emails = ['gone@example.org', 'angry@example.org', 'happy@example.org'];
    const list = await listWith(a, 'Bouncing list', emails);
    const other = await listWith(a, 'Other list', ['angry@example.org']);
    const first = await makeCampaign(a, { name: 'First', subject: 'First', contentHtml: '<p>Hi</p>', listIds: [list] });
    await a.api
      .patch(nl(a, `/campaigns/${first.id}`))
      .send({ status: 'scheduled' })
      .expect(200);
    await campaignReaches(a, first.id, 'sent');
    const copies = await eventually(async () => (copiesOf('First').length === 3 ? copiesOf('First') : undefined));
    const copy = (email: string) => copies.find((m) => m.to[0] === email)!;
    expect(copies.map((m) => m.from).every((f) => f.startsWith('bounces+') && f.endsWith(`@${DOMAIN}`))).toBe(true);

    const since = await lastEventId(t);
    await report('postfix-hard.eml', copy('gone@example.org'));
    await report('arf-abuse.eml', copy('angry@example.org'));

    const subs = await a.api.get(nl(a, '/subscriptions?limit=10')).expect(200);
    const byEmail = new Map(
      (subs.body.data as Array<{ id: number; email: string; deliverability: string; lists: unknown[] }>).map((s) => [
        s.email,
        s,
      ]),
    );
    expect([...byEmail.values()].map((s) => [s.email, s.deliverability]).sort()).toEqual([
      ['angry@example.org', 'complained'],
      ['gone@example.org', 'bounced'],
      ['happy@example.org', 'deliverable'],
    ]);
    const angry = byEmail.get('angry@example.org')!;
    expect(angry.lists).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ listId: list, status: 'unsubscribed', reason: 'complaint' }),
        expect.objectContaining({ listId: other, status: 'unsubscribed', reason: 'complaint' }),
      ]),
    );
    const messageOf = (email: string) => Number(/^X-Sitebase-Message-Id: (\d+)/im.exec(copy(email).raw)![1]);
    expect((await eventsOf(t, a, since)).filter((e) => e.name.startsWith('newsletter.subscription.'))).toEqual([
      {
        name: 'newsletter.subscription.bounced',
        payload: {
          id: byEmail.get('gone@example.org')!.id,
          messageId: messageOf('gone@example.org'),
          campaignId: first.id,
          source: 'dsn',
          kind: 'hard',
        },
      },
      {
        name: 'newsletter.subscription.complained',
        payload: {
          id: angry.id,
          messageId: messageOf('angry@example.org'),
          campaignId: first.id,
          source: 'arf',
          listIds: [list, other].sort((x, y) => x - y),
        },
      },
      {
        name: 'newsletter.subscription.unsubscribed',
        payload: { id: angry.id, listIds: [list, other].sort((x, y) => x - y), by: 'person', reason: 'complaint' },
      },
    ]);

    const stats = await a.api.get(nl(a, `/statistics?campaignId=${first.id}`)).expect(200);
    expect(stats.body.campaigns[0]).toEqual(
      expect.objectContaining({
        sent: 3,
        delivered: 3,
        bounces: 1,
        complaints: 1,
        rates: expect.objectContaining({ bounce: 0.3333, complaint: 0.3333 }),
      }),
    );

    const second = await makeCampaign(a, {
      name: 'Second',
      subject: 'Second',
      contentHtml: '<p>Hi</p>',
      listIds: [list],
    });
    await a.api
      .patch(nl(a, `/campaigns/${second.id}`))
      .send({ status: 'scheduled' })
      .expect(200);
    const done = await campaignReaches(a, second.id, 'sent');
    expect((done as { counts: { sent: number } }).counts.sent).toBe(1);
    await eventually(async () => (copiesOf('Second').length === 1 ? true : undefined));
    expect(copiesOf('Second').map((m) => m.to[0])).toEqual(['happy@example.org']);
  }, 60000);
});
