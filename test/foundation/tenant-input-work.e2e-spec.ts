import type { AddressInfo } from 'node:net';
import { MailHtml } from '../../src/common/html/mail-html';
import { eventually, startApp, TestApp } from '../support/app';
import { createFreshDatabase } from '../support/databases';
import { snapshotDatabase } from '../support/db-snapshot';
import { expectProblem } from '../support/problem';
import { startSmtpSink, SmtpSink } from '../support/smtp';
import { createTenant, Tenant } from '../support/tenant';
import { whileHealthPolled } from '../support/health-poll';
import { scaled } from '../support/time-scale';
import { campaignReaches, listWith, makeCampaign, nl } from '../support/newsletter';

/**
 * No tenant input runs unbounded on the shared event loop (issue 42, docs/security.md, "Work on
 * tenant input"): each costly library call's worst input is sent through the real route while
 * `/health` is polled; the input is refused (nothing stored) or done, and `/health` keeps
 * answering. Before the shape limits and the worker threads, row 1's flood held `/health` 8.8 s
 * (5,000 rules × 10,000 elements) and 32 s (8,000 × 20,000).
 */
describe('work on tenant input: bounded, off the event loop', () => {
  let smtp: SmtpSink;
  let t: TestApp;
  let a: Tenant;
  let base: string;

  beforeAll(async () => {
    smtp = await startSmtpSink();
    t = await startApp({ databaseUrl: await createFreshDatabase('tenantinputwork'), env: { SMTP_URL: smtp.url } });
    await t.app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(t.server.address() as AddressInfo).port}`;
    a = await createTenant(t);
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  /** A document of `rules` CSS rules and `elements` paragraphs that use them (row 1 of issue 42). */
  function cssFlood(rules: number, elements: number): string {
    let css = '';
    for (let i = 0; i < rules; i++) css += `.c${i}{color:red}`;
    let body = '';
    for (let i = 0; i < elements; i++) body += `<p class="c${i % rules}">x</p>`;
    return `<html><head><style>${css}</style></head><body>${body}</body></html>`;
  }

  const send = (body: Record<string, unknown>) =>
    a.api.post(`/api/v2/sites/${a.siteName}/email/send`).send({ to: [{ email: 'ada@example.com' }], ...body });

  it.each([
    [5_000, 10_000, /5,000 CSS selectors \(at most 2,000\)/],
    [8_000, 20_000, /8,000 CSS selectors \(at most 2,000\)/],
    [1_000, 10_000, /1,000 CSS selectors and 10,004 elements, 10,004,000 pairs to match when inlining/],
  ])(
    'juice: POST /email/send of %i CSS rules × %i elements is a 400 and /health answers',
    async (r, e, why) => {
      const html = cssFlood(r, e);
      const before = await snapshotDatabase(t.db);
      const res = await whileHealthPolled(base, `juice ${r} × ${e} (${Math.round(html.length / 1024)} KB)`, () =>
        send({ subject: 'Flood', html }),
      );
      expectProblem(res, 400, 'template_limit_exceeded');
      expect(res.body.detail).toMatch(why);
      expect(res.body.errors).toEqual([{ path: 'html', message: expect.stringMatching(why) }]);
      expect(await snapshotDatabase(t.db)).toEqual(before);
    },
    300_000,
  );

  it('juice: a template whose <style> is over the limits is refused at save', async () => {
    const before = await snapshotDatabase(t.db);
    const res = await whileHealthPolled(base, 'juice 5,000 × 10,000 as a template', () =>
      a.api
        .post(`/api/v2/sites/${a.siteName}/email/templates`)
        .send({ type: 'custom', name: 'Flood', subject: 'Flood', html: cssFlood(5_000, 10_000) }),
    );
    expectProblem(res, 400, 'template_limit_exceeded');
    expect(res.body.errors).toEqual([{ path: 'html', message: expect.stringMatching(/5,000 CSS selectors/) }]);
    expect(await snapshotDatabase(t.db)).toEqual(before);
  }, 300_000);

  it.each([
    ['<b>', 300_000],
    ['<div>', 190_000],
  ])(
    'htmlparser2 and html-to-text: %s nested %i deep is a 400 and /health answers',
    async (tag, n) => {
      const before = await snapshotDatabase(t.db);
      const res = await whileHealthPolled(base, `html-to-text ${tag} × ${n}`, () =>
        send({ subject: 'Deep', html: tag.repeat(n) + 'x' }),
      );
      expectProblem(res, 400, 'template_limit_exceeded');
      expect(res.body.detail).toBe(
        'The HTML of `html` nests elements more than 256 deep (at most 256); make it simpler',
      );
      expect(await snapshotDatabase(t.db)).toEqual(before);
    },
    300_000,
  );

  it('htmlparser2: a campaign whose content nests 80,000 deep is refused at create', async () => {
    const list = await listWith(a, 'Deep list', ['deep@example.com']);
    const before = await snapshotDatabase(t.db);
    const res = await whileHealthPolled(base, 'campaign links, <a> × 80,000', () =>
      a.api
        .post(nl(a, '/campaigns'))
        .send({ name: 'Deep', subject: 'Deep', contentHtml: '<a>'.repeat(80_000), listIds: [list] }),
    );
    expectProblem(res, 400, 'template_limit_exceeded');
    expect(res.body.errors).toEqual([
      { path: 'contentHtml', message: expect.stringMatching(/nests elements more than 256 deep/) },
    ]);
    expect(await snapshotDatabase(t.db)).toEqual(before);
  }, 300_000);

  it("juice: a campaign's <style> is inlined once per campaign, not per copy", async () => {
    const readers = Array.from({ length: 12 }, (_, i) => `reader${i}@example.com`);
    const list = await listWith(a, 'Styled list', readers);
    const mailHtml: { run: () => unknown } = t.app.get<unknown, { run: () => unknown }>(MailHtml);
    const tasks = jest.spyOn(mailHtml, 'run');
    try {
      const refused = await a.api
        .post(nl(a, '/campaigns'))
        .send({ name: 'Flood', subject: 'Flood', contentHtml: cssFlood(5_000, 10_000), listIds: [list] });
      expectProblem(refused, 400, 'template_limit_exceeded');
      const c = await makeCampaign(a, {
        name: 'Styled',
        contentHtml: '<style>p.lead { color: #123456; }</style><p class="lead">Hi {{ subscriber.email }}</p>',
        listIds: [list],
      });
      const mailed = smtp.received.length;
      tasks.mockClear();
      await whileHealthPolled(base, 'a campaign with <style> to 12 readers', async () => {
        await a.api
          .patch(nl(a, `/campaigns/${c.id}`))
          .send({ status: 'scheduled' })
          .expect(200);
        await campaignReaches(a, c.id, 'sent', scaled(30_000));
        await eventually(async () => (smtp.received.length >= mailed + readers.length ? true : undefined), 30_000);
      });
      // The content (with its tracked links) once at the send's batch, the site's wrapper once:
      // never one inlining per copy.
      expect(tasks.mock.calls.length).toBeLessThanOrEqual(2);
      const mail = smtp.received.slice(mailed).find((m) => m.to.includes('reader3@example.com'))!;
      expect(mail.parsed.html).toContain('<p class="lead" style="color: #123456;">Hi reader3@example.com</p>');
      expect(mail.parsed.html).not.toContain('<style>p.lead');
    } finally {
      tasks.mockRestore();
    }
  }, 300_000);
});
