import { Clock } from '../../src/common/scheduling/clock';
import { MaintenanceService } from '../../src/common/maintenance.service';
import { eventually, startApp, TestApp } from '../support/app';
import { createFreshDatabase } from '../support/databases';
import { ISO } from '../support/matchers';
import { startSmtpSink, SmtpSink } from '../support/smtp';
import { createTenant, Tenant } from '../support/tenant';

const DAY_MS = 86_400_000;

/**
 * Transactional bodies are kept EMAIL_BODY_RETENTION_DAYS (30), records
 * EMAIL_MESSAGE_RETENTION_DAYS (365) (docs/email.md, "What is stored"): the Clock is moved past
 * each window and the maintenance job's steps run.
 */
describe('email retention', () => {
  let smtp: SmtpSink;
  let databaseUrl: string;
  let t: TestApp;
  let a: Tenant;
  let b: Tenant;

  beforeAll(async () => {
    smtp = await startSmtpSink();
    databaseUrl = await createFreshDatabase('mailretention');
    // Batches of 2 rows, at most 2 a run: each rule's run is bounded.
    t = await startApp({
      databaseUrl,
      env: { SMTP_URL: smtp.url, RETENTION_BATCH_SIZE: '2', RETENTION_MAX_BATCHES: '2' },
    });
    [a, b] = await Promise.all([createTenant(t), createTenant(t)]);
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  const sendOne = async (x: Tenant, app: TestApp, subject: string): Promise<number> => {
    const res = await x.api
      .post(`/api/v2/sites/${x.siteName}/email/send`)
      .send({ to: [{ email: 'keep@example.com' }], subject, html: '<p>Your receipt, kept a while.</p>' })
      .expect(202);
    const id = res.body.messages[0].id as number;
    await eventually(async () => {
      const [row] = await app.db.query('SELECT status FROM email_messages WHERE id = $1', [id]);
      return row.status === 'sent' ? true : undefined;
    });
    return id;
  };
  const row = async (id: number) =>
    (
      await t.db.query(
        `SELECT status, subject, recipient, smtp_response IS NOT NULL AS answered, html, text, body_dropped_at
           FROM email_messages WHERE id = $1`,
        [id],
      )
    )[0] as Record<string, unknown> | undefined;
  const at = (ms: number) => jest.spyOn(t.app.get(Clock), 'now').mockReturnValue(new Date(ms));
  /** One run of the maintenance job: what the rule removed. */
  const maintain = async (rule: string) => {
    const outcome = (await t.app.get(MaintenanceService).cleanup()).find((o) => o.rule === rule)!;
    expect(outcome.error).toBeUndefined();
    return outcome.removed;
  };

  it('drops a sent body after its window, keeps its record, and the answer says the body was dropped', async () => {
    const id = await sendOne(a, t, 'Receipt 1');
    const other = await sendOne(b, t, 'Receipt of another site');
    // A message still waiting for delivery keeps its body, whatever its age.
    const [{ id: waiting }] = await t.db.query(
      `INSERT INTO email_messages (site_id, batch_id, recipient, recipient_kind, from_header, to_header, subject, html,
         text, created_at)
       VALUES ($1, gen_random_uuid(), 'later@example.com', 'to', 'x@localhost', 'later@example.com', 'Waiting',
               '<p>w</p>', 'w', now() - interval '400 days') RETURNING id`,
      [a.siteId],
    );
    await t.db.query(`UPDATE email_messages SET status = 'queued' WHERE id = $1`, [waiting]);
    const now = Date.now();

    at(now + 29 * DAY_MS);
    expect(await maintain('email.bodies')).toBe(0);
    expect(await row(id)).toMatchObject({ html: '<p>Your receipt, kept a while.</p>', body_dropped_at: null });

    const dropTime = now + 31 * DAY_MS;
    at(dropTime);
    expect(await maintain('email.bodies')).toBe(2);
    expect(await row(id)).toEqual({
      status: 'sent',
      subject: 'Receipt 1',
      recipient: 'keep@example.com',
      answered: true,
      html: null,
      text: null,
      body_dropped_at: new Date(dropTime),
    });
    expect((await row(other))!.html).toBeNull();
    expect((await row(Number(waiting)))!.html).toBe('<p>w</p>');
    const shown = await a.api.get(`/api/v2/sites/${a.siteName}/email/messages/${id}`).expect(200);
    expect(shown.body).toMatchObject({
      bodyStatus: 'dropped',
      bodyDroppedAt: new Date(dropTime).toISOString(),
      html: null,
      text: null,
      subject: 'Receipt 1',
      status: 'sent',
    });
    expect(shown.body.bodyDroppedAt).toEqual(ISO);
    // A young message's answer still shows its stored body.
    const young = await sendOne(a, t, 'Receipt 2');
    const kept = await a.api.get(`/api/v2/sites/${a.siteName}/email/messages/${young}`).expect(200);
    expect(kept.body).toMatchObject({ bodyStatus: 'stored', bodyDroppedAt: null });
    expect(kept.body.html).toContain('kept a while');

    await sendOne(b, t, 'Receipt 3');
    // The record itself goes after EMAIL_MESSAGE_RETENTION_DAYS, at most 4 rows a run.
    at(now + 366 * DAY_MS);
    const runs: number[] = [];
    for (let n = await maintain('email.messages'); n > 0; n = await maintain('email.messages')) runs.push(n);
    // Five messages: Receipt 1 and 2, the other site's, the waiting one and the one below.
    expect(runs).toEqual([4, 1]);
    expect(await row(id)).toBeUndefined();
    await a.api.get(`/api/v2/sites/${a.siteName}/email/messages/${id}`).expect(404);
  });

  it('EMAIL_BODY_RETENTION_DAYS=0 keeps no body once the message is sent', async () => {
    // A database of its own: the first app's delivery job would otherwise take the message.
    const none = await startApp({
      freshDatabase: 'mailretention0',
      env: { SMTP_URL: smtp.url, EMAIL_BODY_RETENTION_DAYS: '0' },
    });
    try {
      const x = await createTenant(none);
      const id = await sendOne(x, none, 'Nothing kept');
      const [stored] = await none.db.query(
        'SELECT html, text, body_dropped_at IS NOT NULL AS dropped FROM email_messages WHERE id = $1',
        [id],
      );
      expect(stored).toEqual({ html: null, text: null, dropped: true });
      expect(
        smtp.received.some((m) => m.parsed.subject === 'Nothing kept' && /receipt/.test(m.parsed.text ?? '')),
      ).toBe(true);
      const shown = await x.api.get(`/api/v2/sites/${x.siteName}/email/messages/${id}`).expect(200);
      expect(shown.body).toMatchObject({ bodyStatus: 'dropped', html: null });
    } finally {
      await none.close();
    }
  });
});
