import { ContentPublishJob } from '../../src/content/content-publish.job';
import { EmailDeliveryJob } from '../../src/email/email-delivery.job';
import { ImportService } from '../../src/newsletter/bulk-import/import.service';
import { eventually, startApp, TestApp } from '../support/app';
import { createFreshDatabase } from '../support/databases';
import { startSmtpSink, SmtpSink } from '../support/smtp';
import { createTenant, Tenant } from '../support/tenant';

/**
 * docs/reliability.md, "After a crash": work whose job died with a killed instance is picked up
 * by a sweep every minute instead of waiting out the job's expiry. Each case builds the state a
 * SIGKILL leaves (a row in flight, no live job for it) and runs the sweep as its cron would.
 */
describe('Recovery sweeps', () => {
  let smtp: SmtpSink;
  let t: TestApp;
  let a: Tenant;
  const one = async <T>(text: string, params: unknown[] = []) => (await t.db.query<T[]>(text, params))[0];

  beforeAll(async () => {
    smtp = await startSmtpSink();
    // A database of its own: the sweeps read every site's rows.
    t = await startApp({ databaseUrl: await createFreshDatabase('recovery'), env: { SMTP_URL: smtp.url } });
    a = await createTenant(t);
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  it('publishes a scheduled item whose job was lost, once, and leaves one not yet due alone', async () => {
    const [overdue, due] = await Promise.all(
      ['lost-job', 'later'].map((slug) =>
        one<{ id: string }>(
          `INSERT INTO content_items (site_id, type, title, slug, content, excerpt, status, publish_at, version)
           VALUES ($1, 'post', $2, $2, '', '', 'scheduled', now() - interval ${slug === 'lost-job' ? "'3 minutes'" : "'-1 hour'"}, 1)
           RETURNING id`,
          [a.siteId, slug],
        ),
      ),
    );
    const sweep = t.app.get(ContentPublishJob);
    expect(await sweep.recover()).toBe(1);
    const published = await eventually(async () => {
      const row = await one<{ status: string; published_at: Date; publish_at: Date | null }>(
        'SELECT status, published_at, publish_at FROM content_items WHERE id = $1',
        [overdue.id],
      );
      return row.status === 'published' ? row : undefined;
    });
    expect(published.publish_at).toBeNull();
    // Published at its scheduled time, not when the sweep found it.
    expect(Date.now() - published.published_at.getTime()).toBeGreaterThan(170_000);
    // Nothing is left for the next sweep, and running the job again changed nothing.
    expect(await sweep.recover()).toBe(0);
    const events = await one<{ n: number }>(
      `SELECT count(*)::int AS n FROM outbox_events WHERE name = 'content.published' AND payload->>'id' = $1`,
      [overdue.id],
    );
    expect(events.n).toBe(1);
    const later = await one<{ status: string }>('SELECT status FROM content_items WHERE id = $1', [due.id]);
    expect(later.status).toBe('scheduled');
  });

  it('sends again a message a stopped sender claimed more than five minutes ago, and not a fresh claim', async () => {
    const send = (subject: string) =>
      a.api
        .post(`/api/v2/sites/${a.siteName}/email/send`)
        .send({ to: [{ email: 'ada@example.com' }], subject, html: `<p>${subject}</p>` })
        .expect(202);
    const [stale, fresh] = [
      (await send('Stale claim')).body.messages[0].id,
      (await send('Fresh claim')).body.messages[0].id,
    ];
    await smtp.waitFor(2);
    // Both recorded as sent before the test rewinds them (the answer is written after the SMTP accept).
    await eventually(async () => {
      const r = await one<{ n: number }>(
        `SELECT count(*)::int AS n FROM email_messages WHERE id IN ($1, $2) AND status = 'sent'`,
        [stale, fresh],
      );
      return r.n === 2 ? true : undefined;
    });
    // What a SIGKILL between claim and answer leaves: `sending`, claimed long ago (stale) or
    // just now (fresh: its sender may still be working on it).
    await t.db.query(
      `UPDATE email_messages SET status = 'sending', claimed_at = CASE WHEN id = $1 THEN now() - interval '6 minutes' ELSE now() END
        WHERE id IN ($1, $2)`,
      [stale, fresh],
    );
    expect(await t.app.get(EmailDeliveryJob).recover()).toBe(1);
    await smtp.waitFor(3);
    const row = await eventually(async () => {
      const r = await one<{ status: string; attempts: number }>(
        'SELECT status, attempts FROM email_messages WHERE id = $1',
        [stale],
      );
      return r.status === 'sent' ? r : undefined;
    });
    expect(row.attempts).toBe(2);
    expect(smtp.received.filter((m) => m.parsed.subject === 'Stale claim')).toHaveLength(2);
    expect(smtp.received.filter((m) => m.parsed.subject === 'Fresh claim')).toHaveLength(1);
    const untouched = await one<{ status: string }>('SELECT status FROM email_messages WHERE id = $1', [fresh]);
    expect(untouched.status).toBe('sending');
  });

  it('runs again an import that stopped moving, to completion, and leaves a moving one alone', async () => {
    const list = (
      await a.api.post(`/api/v2/sites/${a.siteName}/newsletter/lists`).send({ name: 'Recovered' }).expect(201)
    ).body as { id: number };
    // A running import with two staged chunks left and no live job, last touched three minutes
    // ago; and one touched just now (its runner is alive).
    const stalled = await one<{ id: string }>(
      `INSERT INTO newsletter_imports (site_id, status, mode, list_ids, consent, overwrite, rows_read, rows_staged, updated_at)
       VALUES ($1, 'running', 'subscribe', $2, true, false, 4, 4, now() - interval '3 minutes') RETURNING id`,
      [a.siteId, [list.id]],
    );
    const moving = await one<{ id: string }>(
      `INSERT INTO newsletter_imports (site_id, status, mode, list_ids, consent, overwrite, rows_read, rows_staged)
       VALUES ($1, 'running', 'subscribe', $2, true, false, 0, 0) RETURNING id`,
      [a.siteId, [list.id]],
    );
    for (const [chunk, emails] of [
      [1, ['one@recovered.test', 'two@recovered.test']],
      [2, ['three@recovered.test', 'four@recovered.test']],
    ] as const)
      await t.db.query(
        `INSERT INTO newsletter_import_chunks (import_id, chunk_no, row_nos, emails, names, attributes)
         VALUES ($1, $2, $3::int[], $4::text[], $5::text[], $6::jsonb[])`,
        [stalled.id, chunk, [chunk * 2, chunk * 2 + 1], emails, ['', ''], ['{}', '{}']],
      );
    expect(await t.app.get(ImportService).recover()).toEqual([Number(stalled.id)]);
    const done = await eventually(async () => {
      const r = await one<{ status: string; rows_done: number; created: number }>(
        'SELECT status, rows_done, created FROM newsletter_imports WHERE id = $1',
        [stalled.id],
      );
      return r.status === 'completed' ? r : undefined;
    });
    expect(done).toMatchObject({ rows_done: 4, created: 4 });
    const members = await one<{ n: number }>(
      `SELECT count(*)::int AS n FROM newsletter_memberships WHERE list_id = $1 AND status = 'active'`,
      [list.id],
    );
    expect(members.n).toBe(4);
    const chunks = await one<{ n: number }>(
      'SELECT count(*)::int AS n FROM newsletter_import_chunks WHERE import_id = $1',
      [stalled.id],
    );
    expect(chunks.n).toBe(0);
    // Just touched: its runner is alive, so the sweep leaves it (and the recovered one is done).
    expect(await t.app.get(ImportService).recover()).toEqual([]);
    const other = await one<{ status: string }>('SELECT status FROM newsletter_imports WHERE id = $1', [moving.id]);
    expect(other.status).toBe('running');
  });
});
