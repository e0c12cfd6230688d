import { eventually, startApp, TestApp } from '../support/app';
import { createFreshDatabase } from '../support/databases';
import { startSmtpSink, SmtpSink } from '../support/smtp';
import { createTenant, Tenant } from '../support/tenant';
import { listWith, makeCampaign } from './campaign-fixtures';
import { nl } from './newsletter-fixtures';

const addresses = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${i + 1}@example.com`);

const BACKLOG = 20;
const A_AUDIENCE = 300;

/**
 * Fair share of the mail queue (docs/newsletter.md, "Delivery"): account A's big campaign is
 * being delivered to a slow SMTP server when account B sends a transactional mail and a small
 * campaign. A's send hands over no more copies while A has NEWSLETTER_ACCOUNT_BACKLOG_MAX mails
 * waiting, so B's mail queues behind at most that many of A's, not behind A's whole campaign;
 * single sends go before campaign copies.
 */
describe('fair share of the mail queue between accounts', () => {
  let smtp: SmtpSink;
  let t: TestApp;
  let a: Tenant;
  let b: Tenant;

  beforeAll(async () => {
    // 20 ms a message over one connection: about 50 a second, so A's campaign takes seconds.
    smtp = await startSmtpSink({ delayMs: 20 });
    t = await startApp({
      databaseUrl: await createFreshDatabase('fairmail'),
      env: {
        SMTP_URL: smtp.url,
        SMTP_POOL_SIZE: '1',
        NEWSLETTER_SEND_BATCH_SIZE: '10',
        NEWSLETTER_ACCOUNT_BACKLOG_MAX: String(BACKLOG),
      },
    });
    [a, b] = await Promise.all([createTenant(t), createTenant(t)]);
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  const received = (subject: string) => smtp.received.filter((m) => m.parsed.subject === subject).length;

  it("B's mail and campaign go out while A's 300-copy campaign is still being delivered", async () => {
    const aList = await listWith(a, 'Big', addresses('a', A_AUDIENCE));
    const bList = await listWith(b, 'Small', addresses('b', 10));
    const big = await makeCampaign(a, { name: 'Big', subject: 'A big', contentHtml: '<p>A</p>', listIds: [aList] });
    const small = await makeCampaign(b, {
      name: 'Small',
      subject: 'B small',
      contentHtml: '<p>B</p>',
      listIds: [bList],
    });
    await a.api
      .patch(nl(a, `/campaigns/${big.id}`))
      .send({ status: 'scheduled' })
      .expect(200);
    await eventually(async () => (received('A big') > 0 ? true : undefined));

    // A's account never has much more than its backlog bound waiting (a batch may cross it).
    const waiting = async () =>
      (
        await t.db.query(
          `SELECT count(*)::int AS n FROM email_messages WHERE site_id = $1 AND status IN ('queued', 'sending')`,
          [a.siteId],
        )
      )[0].n as number;
    expect(await waiting()).toBeLessThanOrEqual(BACKLOG + 10);

    await b.api
      .post(`/api/v2/sites/${b.siteName}/email/send`)
      .send({ to: [{ email: 'b-tx@example.com' }], subject: 'B transactional', text: 'Your code' })
      .expect(202);
    await b.api
      .patch(nl(b, `/campaigns/${small.id}`))
      .send({ status: 'scheduled' })
      .expect(200);

    // B's campaign hands its 10 copies over in one batch: from then on, how many of A's go first?
    await eventually(
      async () => {
        const [{ n }] = await t.db.query(
          'SELECT count(*)::int AS n FROM newsletter_campaign_recipients WHERE campaign_id = $1',
          [small.id],
        );
        return n === 10 ? true : undefined;
      },
      30_000,
      10,
    );
    const aAtHandover = received('A big');
    const maxWaiting = await waiting();
    await eventually(async () => (received('B small') === 10 ? true : undefined), 30_000, 10);
    const aAtSmall = received('A big');
    const aAtTransactional = smtp.received
      .slice(
        0,
        smtp.received.findIndex((m) => m.parsed.subject === 'B transactional'),
      )
      .filter((m) => m.parsed.subject === 'A big').length;
    await smtp.waitFor(A_AUDIENCE + 11, 60_000);
    console.log(
      `fair mail queue: A's copies delivered before B's single send: ${aAtTransactional}; ` +
        `between B's campaign handing its copies over and their delivery: ${aAtSmall - aAtHandover} ` +
        `(A at ${aAtSmall} of ${A_AUDIENCE} then)`,
    );
    // B's copies wait behind at most A's bound (and a batch in hand), not A's whole campaign:
    // without the bound, about 100 of A's went first on this machine (24 with it).
    expect(aAtSmall - aAtHandover).toBeLessThanOrEqual(BACKLOG + 10 + 20);
    expect(aAtSmall).toBeLessThan(A_AUDIENCE);
    expect(maxWaiting).toBeLessThanOrEqual(BACKLOG + 10);
    expect(received('A big')).toBe(A_AUDIENCE);

    // Single sends are fetched before campaign copies.
    const jobs: Array<{ priority: number; n: number }> = await t.db.query(
      `SELECT priority, count(*)::int AS n FROM pgboss.job WHERE name = 'email.deliver' AND data->>'siteId' IN ($1, $2)
        GROUP BY priority ORDER BY priority`,
      [String(a.siteId), String(b.siteId)],
    );
    expect(jobs.map((j) => j.priority)).toEqual([0, 1]);
    expect(jobs[1].n).toBe(1);
  });
});
