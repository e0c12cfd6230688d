import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { REDACT_STORED_SECRETS } from '../../src/database/migrations/1795600000000-sealed-mail-secrets';
import { eventually, startApp, TestApp } from '../support/app';
import { reportCopy } from '../support/bounces';
import { createFreshDatabase, freePort } from '../support/databases';
import { lastEventId } from '../support/events';
import { loadOperations } from '../support/openapi-operations';
import { operationUrl, requiredQuery, seedResources } from '../support/resource-fixtures';
import { ReceivedMail, startSmtpSink, SmtpSink } from '../support/smtp';
import { agent, Api, createTenant, Tenant } from '../support/tenant';
import { startWebhookReceiver, WebhookReceiver } from '../support/webhook-receiver';

/**
 * Issue #42, point 2 (docs/security.md, "stored mail"): nothing a key can read is a credential.
 * Every kind of stored mail that carries a secret is made the way it is made in use: a sign-in
 * code, an email-change code, a double opt-in confirmation, the welcomes, a campaign copy, a
 * series copy, an order confirmation with an order link. The codes and link tokens are read
 * from the mail the SMTP sink received, and they work there (verify-otp, verify-email, confirm,
 * preferences, one-click unsubscribe). Then every answer that can show a stored message or an
 * event is read, each with the narrowest key that reads it (`email:read` for the messages,
 * `webhooks:read` for the delivery log), and every GET of the document with a full key: none
 * holds a working code or token. The outbox's payloads hold none either.
 */
describe('stored mail keeps no working code or link', () => {
  const base = 'http://127.0.0.1:9';
  let smtp: SmtpSink;
  let rx: WebhookReceiver;
  let t: TestApp;
  let a: Tenant;
  /** The bounce listener's port: a complaint makes the re-consent mail. */
  let listener: number;
  /** Every secret the recipients got: codes and link tokens. */
  const secrets = new Map<string, string>();
  /** The endpoint that hears every event, and the last event before it. */
  let endpointId: number;
  let afterEvent: number;
  const site = (rest: string) => `/api/v2/sites/${a.siteName}${rest}`;
  const anonymous = () => request(t.server);

  beforeAll(async () => {
    smtp = await startSmtpSink();
    rx = await startWebhookReceiver();
    listener = await freePort();
    t = await startApp({
      databaseUrl: await createFreshDatabase('storedsecrets'),
      env: {
        SMTP_URL: smtp.url,
        PUBLIC_BASE_URL: base,
        WEBHOOKS_ALLOW_PRIVATE: 'true',
        WEBHOOKS_ALLOW_HTTP: 'true',
        RATE_LIMIT_PUBLIC_MAX: '100000',
        BOUNCE_DOMAIN: 'bounces.stored-secrets.test',
        BOUNCE_SMTP_PORT: String(listener),
        BOUNCE_SMTP_HOST: '127.0.0.1',
      },
    });
    a = await createTenant(t);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
    await rx?.close();
  });

  /** The newest mail to `email` that `match` keeps, once the sink has it. */
  const mailTo = (email: string, match: (m: ReceivedMail) => boolean = () => true) =>
    eventually(async () => [...smtp.received].reverse().find((m) => m.to.includes(email) && match(m)), 20_000);
  const bodyOf = (m: ReceivedMail) =>
    `${m.parsed.text ?? ''}\n${typeof m.parsed.html === 'string' ? m.parsed.html : ''}`;
  const codeIn = (m: ReceivedMail) => /\b(\d{6})\b/.exec(m.parsed.text ?? '')![1];
  const tokenIn = (m: ReceivedMail, kind: 'confirm' | 'preferences') =>
    new RegExp(`/newsletter/${kind}/([\\w.-]+)`).exec(bodyOf(m))![1];
  /** The one-click URL of a raw mail's List-Unsubscribe (mailparser moves List-* out of its headers). */
  const oneClickOf = (m: ReceivedMail) => /^List-Unsubscribe: <([^>]+)>/im.exec(m.raw.replace(/\r?\n[ \t]+/g, ' '))![1];
  const keyWith = async (permissions: string[]): Promise<Api> => {
    const res = await a.api
      .post('/api/v2/api-keys')
      .send({ name: permissions.join(' '), permissions })
      .expect(201);
    return agent(t, res.body.key as string);
  };

  /** Where a secret shows in an answer: its text, bounded (a code is six digits among others). */
  function leaks(text: string): string[] {
    return [...secrets]
      .filter(([, value]) =>
        new RegExp(`(?<![A-Za-z0-9])${value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![A-Za-z0-9])`).test(text),
      )
      .map(([name]) => name);
  }

  it('makes every kind of secret-bearing mail; each recipient gets a working code or link', async () => {
    // A webhook endpoint hears every event: its delivery log is read below.
    const endpoint = await a.api
      .post(site('/webhooks'))
      .send({ url: rx.url, eventTypes: ['*'] })
      .expect(201);
    endpointId = endpoint.body.id as number;
    afterEvent = await lastEventId(t);

    // A sign-in code, by the anonymous route anyone may call.
    await anonymous().post(site('/users/request-otp')).send({ email: 'ada@example.com' }).expect(202);
    const signIn = await mailTo('ada@example.com');
    secrets.set('sign-in code', codeIn(signIn));
    const session = await anonymous()
      .post(site('/users/verify-otp'))
      .send({ email: 'ada@example.com', code: codeIn(signIn) })
      .expect(200);
    const auth = { authorization: `Bearer ${session.body.accessToken as string}` };

    // An email-change code, to the new address.
    await anonymous().patch(site('/users/me')).set(auth).send({ email: 'ada-new@example.com' }).expect(200);
    const change = await mailTo('ada-new@example.com');
    secrets.set('email-change code', codeIn(change));
    await anonymous()
      .post(site('/users/me/verify-email'))
      .set(auth)
      .send({ code: codeIn(change) })
      .expect(200);

    // Double opt-in: the confirmation link, then the welcome's preferences link.
    const digest = await a.api.post(site('/newsletter/lists')).send({ name: 'Digest', doubleOptIn: true }).expect(201);
    await anonymous()
      .post(site('/newsletter/subscribe'))
      .send({ email: 'reader@example.com', lists: [digest.body.id] })
      .expect(202);
    const confirmation = await mailTo('reader@example.com', (m) => /newsletter\/confirm\//.test(bodyOf(m)));
    secrets.set('confirmation token', tokenIn(confirmation, 'confirm'));
    await anonymous()
      .get(site(`/newsletter/confirm/${tokenIn(confirmation, 'confirm')}`))
      .set('accept', 'application/json')
      .expect(200);
    const welcome = await mailTo('reader@example.com', (m) => /newsletter\/preferences\//.test(bodyOf(m)));
    secrets.set('preferences token', tokenIn(welcome, 'preferences'));
    await anonymous()
      .get(site(`/newsletter/preferences/${tokenIn(welcome, 'preferences')}`))
      .set('accept', 'application/json')
      .expect(200);

    // A campaign copy: its own preferences link (a Liquid output: never a click link) and List-Unsubscribe.
    const campaign = await a.api
      .post(site('/newsletter/campaigns'))
      .send({
        name: 'Issue 1',
        subject: 'Issue 1',
        contentHtml:
          '<p>Hello {{ subscriber.email }}</p><p><a href="{{ preferencesUrl }}">Manage</a> ' +
          '<a href="https://blog.example/post">Read</a></p>',
        listIds: [digest.body.id],
      })
      .expect(201);
    await a.api
      .patch(site(`/newsletter/campaigns/${campaign.body.id}`))
      .send({ status: 'scheduled' })
      .expect(200);
    const copy = await mailTo('reader@example.com', (m) => m.parsed.subject === 'Issue 1');
    const manage = tokenIn(welcome, 'preferences');
    expect(bodyOf(copy)).toContain(`href="${base}${site(`/newsletter/preferences/${manage}`)}"`);
    expect(oneClickOf(copy)).toBe(`${base}${site(`/newsletter/unsubscribe?token=${manage}`)}`);

    // A series copy (and the single opt-in welcome before it).
    const course = await a.api.post(site('/newsletter/lists')).send({ name: 'Course', doubleOptIn: false }).expect(201);
    await a.api
      .post(site('/newsletter/series'))
      .send({
        name: 'Course',
        listIds: [course.body.id],
        steps: [{ delaySeconds: 0, subject: 'Lesson 1', html: '<p>Lesson 1</p>' }],
      })
      .expect(201);
    await anonymous()
      .post(site('/newsletter/subscribe'))
      .send({ email: 'student@example.com', lists: [course.body.id] })
      .expect(202);
    const lesson = await mailTo('student@example.com', (m) => m.parsed.subject === 'Lesson 1');
    const studentToken = /[?&]token=([\w.-]+)/.exec(oneClickOf(lesson))![1];
    secrets.set('series preferences token', studentToken);
    expect(tokenIn(lesson, 'preferences')).toBe(studentToken);

    // The re-consent mail: an address that complained is subscribed again; its link's page lifts
    // the complaint, so a tenant reading it from the stored copy would lift it without her.
    await a.api
      .post(site('/email/send'))
      .send({ to: [{ email: 'carol@example.com' }], subject: 'Order news', text: 'Hello' })
      .expect(202);
    await reportCopy(
      listener,
      'arf-abuse.eml',
      await mailTo('carol@example.com', (m) => m.parsed.subject === 'Order news'),
    );
    await eventually(async () => {
      const rows = await t.db.query<unknown[]>(
        `SELECT 1 FROM email_suppressions WHERE site_id = $1 AND email = 'carol@example.com' AND reason = 'complained'`,
        [a.siteId],
      );
      return rows.length > 0 ? true : undefined;
    }, 20_000);
    await anonymous()
      .post(site('/newsletter/subscribe'))
      .send({ email: 'carol@example.com', lists: [digest.body.id] })
      .expect(202);
    const reconsent = await mailTo('carol@example.com', (m) => /newsletter\/confirm\/r\./.test(bodyOf(m)));
    secrets.set('re-consent token', tokenIn(reconsent, 'confirm'));

    // An order confirmation with a link that lets its holder see the order.
    const access = randomBytes(12).toString('hex');
    secrets.set('order access token', access);
    await a.api
      .post(site('/email/send'))
      .send({
        to: [{ email: 'buyer@example.com' }],
        templateType: 'orders.confirmation',
        data: {
          orderNumber: '1042',
          items: [{ name: 'Poster', quantity: 1, price: '€20.00' }],
          total: '€20.00',
          orderUrl: `https://shop.example/orders/1042?access=${access}`,
        },
      })
      .expect(202);
    expect(bodyOf(await mailTo('buyer@example.com'))).toContain(`https://shop.example/orders/1042?access=${access}`);

    // Every copy is sent: the sealed values are gone with the sending.
    await eventually(async () => {
      const [{ n }] = await t.db.query<Array<{ n: number }>>(
        `SELECT count(*)::int AS n FROM email_messages WHERE site_id = $1 AND status IN ('queued', 'sending')`,
        [a.siteId],
      );
      return n === 0 ? true : undefined;
    }, 20_000);
    expect(secrets.size).toBe(7);
    // The built-in sign-in subject carries no code: subjects show in notifications and listings.
    expect(signIn.parsed.subject).toMatch(/^Your sign-in code for\b/);
    expect(signIn.parsed.subject).not.toContain(codeIn(signIn));
  }, 120_000);

  it('GET …/email/messages and each message, with an email:read key: no code or token, in any field', async () => {
    const reader = await keyWith(['email:read']);
    const found: string[] = [];
    const ids: number[] = [];
    let cursor: string | null = null;
    do {
      const page = await reader
        .get(site(`/email/messages?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`))
        .expect(200);
      found.push(...leaks(page.text).map((l) => `${l} in the list`));
      ids.push(...(page.body.data as Array<{ id: number }>).map((m) => m.id));
      cursor = page.body.pagination.nextCursor as string | null;
    } while (cursor);
    expect(ids.length).toBeGreaterThanOrEqual(8);
    const stored: Array<{
      templateType: string | null;
      tags: string[];
      subject: string;
      html: string;
      text: string;
      headers: Record<string, string>;
    }> = [];
    for (const id of ids) {
      const one = await reader.get(site(`/email/messages/${id}`)).expect(200);
      const body = one.body as (typeof stored)[number];
      found.push(...leaks(one.text).map((l) => `${l} in message ${id} (${body.templateType ?? 'no template'})`));
      stored.push(body);
    }
    expect(found).toEqual([]);
    // What they show instead: the placeholder, where the recipient's copy had the value.
    const signIn = stored.find((m) => m.templateType === 'users.otp' && m.tags.includes('sign-in'))!;
    expect(signIn.html).toContain('[redacted:code]');
    expect(signIn.text).toContain('[redacted:code]');
    const campaignCopy = stored.find((m) => m.tags.includes('newsletter-campaign'))!;
    expect(campaignCopy.html).toContain('href="[redacted:preferencesUrl]"');
    expect(campaignCopy.headers['List-Unsubscribe']).toBe('<[redacted:oneClickUnsubscribeUrl]>');
    const seriesCopy = stored.find((m) => m.tags.includes('series'))!;
    expect(seriesCopy.headers['List-Unsubscribe']).toBe('<[redacted:oneClickUnsubscribeUrl]>');
    // Every template type that declares a secret variable was made and shows it redacted.
    const types = (await a.api.get(site('/email/templates/types')).expect(200)).body.data as Array<{
      type: string;
      variables: { properties: Record<string, { secret?: boolean }> };
    }>;
    const secretTypes = types.filter((x) => Object.values(x.variables.properties).some((p) => p.secret === true));
    expect(secretTypes.map((x) => x.type).sort()).toEqual(
      expect.arrayContaining([
        'newsletter.campaign',
        'newsletter.complaint_confirmation',
        'newsletter.confirmation',
        'newsletter.welcome',
        'users.otp',
      ]),
    );
    for (const { type } of secretTypes)
      expect({
        type,
        redacted: stored.some((m) => m.templateType === type && /\[redacted:\w+\]/.test(m.html)),
      }).toEqual({ type, redacted: true });
    // Nothing sealed is left once sent or failed.
    const [{ n }] = await t.db.query<Array<{ n: number }>>(
      `SELECT count(*)::int AS n FROM email_messages WHERE site_id = $1 AND sealed_secrets IS NOT NULL`,
      [a.siteId],
    );
    expect(n).toBe(0);
  });

  it('events: no payload in the outbox, and no delivery in the webhook log (a webhooks:read key), holds one', async () => {
    const payloads = await t.db.query<Array<{ payload: string }>>(
      'SELECT payload::text AS payload FROM outbox_events WHERE site_id = $1 OR site_id IS NULL',
      [a.siteId],
    );
    expect(payloads.length).toBeGreaterThan(10);
    expect(leaks(payloads.map((p) => p.payload).join('\n'))).toEqual([]);
    // Each event of the site after the endpoint was made has its delivery.
    await eventually(async () => {
      const [{ events }] = await t.db.query<Array<{ events: number }>>(
        'SELECT count(*)::int AS events FROM outbox_events WHERE site_id = $1 AND id > $2',
        [a.siteId, afterEvent],
      );
      const [{ deliveries }] = await t.db.query<Array<{ deliveries: number }>>(
        'SELECT count(*)::int AS deliveries FROM webhook_deliveries WHERE endpoint_id = $1',
        [endpointId],
      );
      return events > 0 && deliveries >= events ? true : undefined;
    }, 30_000);
    const log = await keyWith(['webhooks:read']);
    let cursor: string | null = null;
    let read = 0;
    const found: string[] = [];
    do {
      const page = await log
        .get(
          site(`/webhooks/${endpointId}/deliveries?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`),
        )
        .expect(200);
      found.push(...leaks(page.text).map((l) => `${l} in the delivery log`));
      for (const d of page.body.data as Array<{ id: number }>) {
        const one = await log.get(site(`/webhooks/${endpointId}/deliveries/${d.id}`)).expect(200);
        found.push(...leaks(one.text).map((l) => `${l} in delivery ${d.id}`));
        read += 1;
      }
      cursor = page.body.pagination.nextCursor as string | null;
    } while (cursor);
    expect(found).toEqual([]);
    expect(read).toBeGreaterThan(10);
    // What the receiver got is what the log shows.
    expect(leaks(rx.requests.map((r) => r.body).join('\n'))).toEqual([]);
  }, 60_000);

  it('every GET of the document (v2 and v1), with a key that reads everything: no answer holds one', async () => {
    const f = await seedResources(t, a);
    const gets = (await loadOperations(t.server)).operations.filter((op) => op.method === 'get');
    expect(gets.length).toBeGreaterThan(50);
    let ok = 0;
    const found: string[] = [];
    for (const op of gets) {
      const limit = op.queryParams.some((q) => q.name === 'limit') ? 'limit=100' : '';
      const query = requiredQuery(op);
      const url = operationUrl(f, op) + (query ? `${query}${limit ? `&${limit}` : ''}` : limit ? `?${limit}` : '');
      const call = request(t.server).get(url);
      const res = await (op.sessionOnly
        ? call.set('Authorization', `Bearer ${f.sessionToken}`)
        : call.set('x-api-key', a.key));
      if (res.status === 200) ok += 1;
      found.push(...leaks(`${res.text}\n${JSON.stringify(res.headers)}`).map((l) => `${l} in ${op.label}`));
    }
    expect(found).toEqual([]);
    expect(ok).toBeGreaterThan(gets.length / 2);
  }, 120_000);

  it('the recipient’s one-click unsubscribe from the campaign copy works', async () => {
    const copy = smtp.received.find((m) => m.parsed.subject === 'Issue 1')!;
    const url = new URL(oneClickOf(copy));
    await anonymous()
      .post(url.pathname + url.search)
      .type('form')
      .send('List-Unsubscribe=One-Click')
      .expect(200);
  });

  it('the migration redacts what copies stored before it kept in the clear, sent or failed; a queued one keeps it', async () => {
    const insert = async (type: string, status: string, subject: string, html: string, headers: object | null) => {
      const [row] = await t.db.query<Array<{ id: string }>>(
        `INSERT INTO email_messages (site_id, batch_id, recipient, recipient_kind, from_header, to_header, subject,
           html, text, template_type, extra_headers, status)
         VALUES ($1, gen_random_uuid(), 'old@example.com', 'to', 'a@example.com', 'old@example.com', $2, $3, $3, $4, $5,
           $6) RETURNING id`,
        [a.siteId, subject, html, type, headers ? JSON.stringify(headers) : null, status],
      );
      return row.id;
    };
    const token = 'm.12.AAAAAAAAAAAAAAAAAAAAAA.BBBBBBBBBBBBBBBBBBBBBB';
    const oneClick = `<${base}${site(`/newsletter/unsubscribe?token=${token}`)}>`;
    const link = `<a href="${base}${site(`/newsletter/preferences/${token}`)}">Manage</a> #18181b 560px`;
    const otp = await insert('users.otp', 'sent', 'Your sign-in code for Demo: 482913', '<p>482913</p>', null);
    const copy = await insert('newsletter.campaign', 'failed', 'Issue 0', link, { 'List-Unsubscribe': oneClick });
    const queued = await insert('newsletter.campaign', 'queued', 'Issue 0', link, { 'List-Unsubscribe': oneClick });
    await t.db.query(REDACT_STORED_SECRETS);
    const row = async (id: string) =>
      (
        await t.db.query<Array<{ subject: string; html: string; text: string; extra_headers: unknown }>>(
          'SELECT subject, html, text, extra_headers FROM email_messages WHERE id = $1',
          [id],
        )
      )[0];
    expect(await row(otp)).toEqual({
      subject: 'Your sign-in code for Demo: [redacted]',
      html: '<p>[redacted]</p>',
      text: '<p>[redacted]</p>',
      extra_headers: null,
    });
    const redactedLink = `<a href="${base}${site('/newsletter/preferences/[redacted]')}">Manage</a> #18181b 560px`;
    expect(await row(copy)).toEqual({
      subject: 'Issue 0',
      html: redactedLink,
      text: redactedLink,
      extra_headers: { 'List-Unsubscribe': `<${base}${site('/newsletter/unsubscribe?token=[redacted]')}>` },
    });
    expect(await row(queued)).toEqual({
      subject: 'Issue 0',
      html: link,
      text: link,
      extra_headers: { 'List-Unsubscribe': oneClick },
    });
  });
});
