import request from 'supertest';
import { EmailService } from '../../src/email/email.service';
import { SeriesSweepJob } from '../../src/newsletter/series/series-sweep.job';
import { eventually, startApp, TestApp } from '../support/app';
import { createFreshDatabase } from '../support/databases';
import { eventsOf, lastEventId } from '../support/events';
import { expectProblem } from '../support/problem';
import { SmtpSink, startSmtpSink } from '../support/smtp';
import { agent, createTenant, Tenant } from '../support/tenant';
import { mailedMatch } from '../support/mail-copies';
import { listUnsubscribe } from './campaign-fixtures';
import { makeList, nl, subscribe } from './newsletter-fixtures';

interface Step {
  delaySeconds: number;
  subject: string;
  html?: string;
  previewText?: string;
  templateId?: number;
  id?: number;
}

const step = (subject: string, delaySeconds: number, extra: Partial<Step> = {}): Step => ({
  delaySeconds,
  subject,
  html: `<p>${subject}</p>`,
  ...extra,
});

/**
 * Series (drip sequences) end to end: the routes, and mail received by an SMTP server in the
 * test process as the sweep job sends the steps at delays of seconds.
 */
describe('newsletter series', () => {
  let smtp: SmtpSink;
  let t: TestApp;
  let a: Tenant;
  let b: Tenant;
  const base = 'http://127.0.0.1:9';
  const sweep = () => t.app.get(SeriesSweepJob).run();

  /** Subjects of the mail recorded for an address (oldest first), of series steps only. */
  const stepsMailedTo = async (email: string): Promise<string[]> => {
    const rows: Array<{ subject: string }> = await t.db.query(
      `SELECT subject FROM email_messages WHERE site_id = $1 AND recipient = $2 AND 'series' = ANY(tags) ORDER BY id`,
      [a.siteId, email],
    );
    return rows.map((r) => r.subject);
  };
  const enrollmentOf = async (seriesId: number, email: string) => {
    const rows: Array<{ status: string; steps_sent: number; stopped_reason: string | null }> = await t.db.query(
      `SELECT e.status, e.steps_sent, e.stopped_reason FROM newsletter_series_enrollments e
         JOIN newsletter_subscriptions s ON s.id = e.subscription_id WHERE e.series_id = $1 AND s.email = $2`,
      [seriesId, email],
    );
    return rows;
  };
  const createSeries = async (body: Record<string, unknown>) =>
    (await a.api.post(nl(a, '/series')).send(body).expect(201)).body as {
      id: number;
      steps: Array<{ id: number }>;
    };
  const join = async (listId: number, email: string) => {
    await subscribe(t, a, { email, lists: [listId] }).expect(202);
  };

  beforeAll(async () => {
    smtp = await startSmtpSink();
    // Its own database: mail other files left queued would reach this sink.
    t = await startApp({
      databaseUrl: await createFreshDatabase('nlseries'),
      env: {
        SMTP_URL: smtp.url,
        PUBLIC_BASE_URL: base,
        NEWSLETTER_SUBSCRIBE_IP_HOURLY_LIMIT: '1000',
        NEWSLETTER_SUBSCRIBE_EMAIL_HOURLY_LIMIT: '1000',
      },
    });
    a = await createTenant(t);
    b = await createTenant(t);
  }, 60000);

  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  describe('routes', () => {
    it('POST creates a series (201, Location, ETag), GET reads it, the list pages it, events are recorded', async () => {
      const list = await makeList(a, { name: 'Onboarding list', doubleOptIn: false });
      const before = await lastEventId(t);
      const res = await a.api
        .post(nl(a, '/series'))
        .send({
          name: 'Welcome',
          listIds: [list.id],
          steps: [step('Hello', 0, { previewText: 'Nice to meet you' }), step('Next', 86400)],
        })
        .expect(201);
      const id = res.body.id as number;
      expect(res.headers.location).toBe(`${base}/api/v2/sites/${a.siteName}/newsletter/series/${id}`);
      expect(res.headers.etag).toBe(`"${id}-1"`);
      expect(res.body).toEqual({
        id: expect.any(Number),
        name: 'Welcome',
        status: 'active',
        listIds: [list.id],
        steps: [
          {
            id: expect.any(Number),
            position: 1,
            delaySeconds: 0,
            subject: 'Hello',
            previewText: 'Nice to meet you',
            html: '<p>Hello</p>',
            templateId: null,
          },
          {
            id: expect.any(Number),
            position: 2,
            delaySeconds: 86400,
            subject: 'Next',
            previewText: '',
            html: '<p>Next</p>',
            templateId: null,
          },
        ],
        enrollments: { active: 0, completed: 0, stopped: 0 },
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      const rows: Array<{ name: string; status: string; site_id: string }> = await t.db.query(
        'SELECT name, status, site_id FROM newsletter_series WHERE id = $1',
        [id],
      );
      expect(rows).toEqual([{ name: 'Welcome', status: 'active', site_id: String(a.siteId) }]);

      const got = await a.api.get(nl(a, `/series/${id}`)).expect(200);
      expect(got.body).toEqual(res.body);
      expect(got.headers.etag).toBe(`"${id}-1"`);

      await createSeries({ name: 'Second', listIds: [list.id], steps: [step('Two', 0)], status: 'paused' });
      const page1 = await a.api.get(nl(a, '/series?limit=1')).expect(200);
      expect(page1.body.data.map((s: { name: string }) => s.name)).toEqual(['Second']);
      const page2 = await a.api
        .get(nl(a, `/series?limit=1&cursor=${encodeURIComponent(page1.body.pagination.nextCursor)}`))
        .expect(200);
      expect(page2.body.data.map((s: { name: string }) => s.name)).toEqual(['Welcome']);
      const paused = await a.api.get(nl(a, '/series?status=paused')).expect(200);
      expect(paused.body.data.map((s: { name: string }) => s.name)).toEqual(['Second']);

      const events = await eventsOf(t, a, before);
      expect(events.find((e) => e.name === 'newsletter.series.created')?.payload).toEqual({
        id,
        name: 'Welcome',
        status: 'active',
        listIds: [list.id],
        steps: 2,
      });
    });

    it('PATCH renames, moves the status (pause, resume), answers 409 for a move that is not one and 412 for a stale If-Match', async () => {
      const list = await makeList(a, { doubleOptIn: false });
      const made = await createSeries({ name: 'Moves', listIds: [list.id], steps: [step('M1', 0)] });
      const before = await lastEventId(t);
      const renamed = await a.api
        .patch(nl(a, `/series/${made.id}`))
        .set('If-Match', `"${made.id}-1"`)
        .send({ name: 'Moved', status: 'paused' })
        .expect(200);
      expect([renamed.body.name, renamed.body.status, renamed.headers.etag]).toEqual([
        'Moved',
        'paused',
        `"${made.id}-2"`,
      ]);
      const again = await a.api.patch(nl(a, `/series/${made.id}`)).send({ status: 'paused' });
      expectProblem(again, 409, 'transition_forbidden');
      const stale = await a.api
        .patch(nl(a, `/series/${made.id}`))
        .set('If-Match', `"${made.id}-1"`)
        .send({ status: 'active' });
      expectProblem(stale, 412, 'precondition_failed');
      const rows: Array<{ status: string; version: number }> = await t.db.query(
        'SELECT status, version FROM newsletter_series WHERE id = $1',
        [made.id],
      );
      expect(rows).toEqual([{ status: 'paused', version: 2 }]);
      const resumed = await a.api
        .patch(nl(a, `/series/${made.id}`))
        .send({ status: 'active' })
        .expect(200);
      expect(resumed.body.status).toBe('active');
      // Nothing to change: no new version, no event.
      await a.api
        .patch(nl(a, `/series/${made.id}`))
        .send({ name: 'Moved' })
        .expect(200);
      const events = (await eventsOf(t, a, before)).filter((e) => e.name.startsWith('newsletter.series.'));
      expect(events.map((e) => [e.name, (e.payload as { status: string }).status])).toEqual([
        ['newsletter.series.updated', 'paused'],
        ['newsletter.series.updated', 'active'],
      ]);
    });

    it('401 without a key, 404 for another site’s series, 400 for bad bodies (with paths)', async () => {
      const list = await makeList(a, { doubleOptIn: false });
      const made = await createSeries({ name: 'Guarded', listIds: [list.id], steps: [step('G1', 0)] });
      expectProblem(await agent(t).get(nl(a, '/series')), 401, 'missing_credential');
      expectProblem(await agent(t).post(nl(a, '/series')).send({}), 401, 'missing_credential');
      expectProblem(await b.api.get(nl(b, `/series/${made.id}`)), 404, 'not_found');
      expectProblem(await b.api.patch(nl(b, `/series/${made.id}`)).send({ name: 'Mine' }), 404, 'not_found');
      expectProblem(await b.api.delete(nl(b, `/series/${made.id}`)), 404, 'not_found');

      const noSteps = await a.api.post(nl(a, '/series')).send({ name: 'X', listIds: [list.id], steps: [] });
      expectProblem(noSteps, 400, 'validation_failed');
      expect(noSteps.body.errors).toEqual([{ path: 'steps', message: expect.any(String) }]);
      const noContent = await a.api
        .post(nl(a, '/series'))
        .send({ name: 'X', listIds: [list.id], steps: [{ delaySeconds: 0, subject: 'S' }] });
      expectProblem(noContent, 400, 'validation_failed');
      expect(noContent.body.errors).toEqual([{ path: 'steps.0.html', message: 'html or templateId is required' }]);
      const otherList = await makeList(b);
      const foreign = await a.api
        .post(nl(a, '/series'))
        .send({ name: 'X', listIds: [otherList.id], steps: [step('S', 0)] });
      expectProblem(foreign, 400, 'validation_failed');
      expect(foreign.body.errors).toEqual([{ path: 'listIds.0', message: 'is not a list of this site' }]);
      const badDelay = await a.api
        .post(nl(a, '/series'))
        .send({ name: 'X', listIds: [list.id], steps: [step('S', -1)], extra: true });
      expectProblem(badDelay, 400, 'validation_failed');
      expect(badDelay.body.errors.map((e: { path: string }) => e.path).sort()).toEqual([
        'extra',
        'steps.0.delaySeconds',
      ]);
      const badStatus = await a.api.patch(nl(a, `/series/${made.id}`)).send({ status: 'running' });
      expectProblem(badStatus, 400, 'validation_failed');
      const notAStep = await a.api.patch(nl(a, `/series/${made.id}`)).send({ steps: [step('S', 0, { id: 999999 })] });
      expectProblem(notAStep, 400, 'validation_failed');
      expect(notAStep.body.errors).toEqual([{ path: 'steps.0.id', message: 'is not a step of this series' }]);
      const rows: Array<{ n: number }> = await t.db.query(
        'SELECT count(*)::int AS n FROM newsletter_series WHERE site_id = $1 AND name = $2',
        [a.siteId, 'X'],
      );
      expect(rows[0].n).toBe(0);
    });

    it('DELETE removes the series with its steps (204) and records newsletter.series.deleted', async () => {
      const list = await makeList(a, { doubleOptIn: false });
      const made = await createSeries({ name: 'Gone', listIds: [list.id], steps: [step('D1', 0)] });
      const before = await lastEventId(t);
      await a.api.delete(nl(a, `/series/${made.id}`)).expect(204);
      await a.api.get(nl(a, `/series/${made.id}`)).expect(404);
      const steps: Array<{ n: number }> = await t.db.query(
        'SELECT count(*)::int AS n FROM newsletter_series_steps WHERE series_id = $1',
        [made.id],
      );
      expect(steps[0].n).toBe(0);
      expect((await eventsOf(t, a, before)).map((e) => e.name)).toEqual(['newsletter.series.deleted']);
    });
  });

  describe('sending', () => {
    it('steps arrive in order at their delays, with the unsubscribe link and one-click headers; an unsubscribe stops them', async () => {
      const list = await makeList(a, { name: 'Course', doubleOptIn: false });
      const series = await createSeries({
        name: 'Course',
        listIds: [list.id],
        steps: [step('Lesson 1', 0, { previewText: 'Start here' }), step('Lesson 2', 3), step('Lesson 3', 1)],
      });
      // Subscribing confirms the membership: its event queues a sweep, which enrolls them.
      await join(list.id, 'ada@example.com');
      await join(list.id, 'bob@example.com');
      await eventually(async () => ((await stepsMailedTo('bob@example.com')).length > 0 ? true : undefined));
      // Bob leaves by the one-click link of his first lesson before the second is due (as he got
      // it: the stored copy shows the link redacted).
      const [{ extra_headers: stored }]: Array<{ extra_headers: Record<string, string> }> = await t.db.query(
        `SELECT extra_headers FROM email_messages WHERE site_id = $1 AND recipient = $2 AND subject = 'Lesson 1'`,
        [a.siteId, 'bob@example.com'],
      );
      expect(stored).toEqual({
        'List-Unsubscribe': '<[redacted:oneClickUnsubscribeUrl]>',
        'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
      });
      const lesson = await eventually(async () =>
        smtp.received.find((m) => m.to.includes('bob@example.com') && m.parsed.subject === 'Lesson 1'),
      );
      const { url: oneClick, post } = listUnsubscribe(lesson);
      expect(post).toBe('List-Unsubscribe=One-Click');
      expect(oneClick.startsWith(`${base}/api/v2/sites/${a.siteName}/newsletter/unsubscribe?token=`)).toBe(true);
      await request(t.server)
        .post(oneClick.slice(base.length))
        .type('form')
        .send('List-Unsubscribe=One-Click')
        .expect(200);

      const mails = await eventually(async () => {
        const got = smtp.received.filter((m) => m.to.includes('ada@example.com') && /^Lesson/.test(m.parsed.subject!));
        return got.length === 3 ? got : undefined;
      }, 20000);
      expect(mails.map((m) => m.parsed.subject)).toEqual(['Lesson 1', 'Lesson 2', 'Lesson 3']);
      // Each step was handed over its delay after the previous one (3 s, then 1 s).
      const times: Array<{ at: Date }> = await t.db.query(
        `SELECT created_at AS at FROM email_messages WHERE site_id = $1 AND recipient = $2 AND 'series' = ANY(tags)
          ORDER BY id`,
        [a.siteId, 'ada@example.com'],
      );
      const gaps = times.slice(1).map((r, i) => r.at.getTime() - times[i].at.getTime());
      expect(gaps[0]).toBeGreaterThanOrEqual(3000);
      expect(gaps[1]).toBeGreaterThanOrEqual(1000);
      expect(gaps.every((g) => g < 8000)).toBe(true);
      const [first] = mails;
      expect(first.raw).toMatch(
        /^List-Unsubscribe:\s+<http:\/\/127\.0\.0\.1:9\/api\/v2\/sites\/.+\/newsletter\/unsubscribe\?token=m\./m,
      );
      expect(first.raw).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click/m);
      const html = typeof first.parsed.html === 'string' ? first.parsed.html : '';
      expect(html).toContain('<p>Lesson 1</p>');
      expect(html).toContain('Start here');
      expect(html).toMatch(/href="http:\/\/127\.0\.0\.1:9\/api\/v2\/sites\/[^"]+\/newsletter\/preferences\/m\./);

      expect(await enrollmentOf(series.id, 'ada@example.com')).toEqual([
        { status: 'completed', steps_sent: 3, stopped_reason: null },
      ]);
      await eventually(async () =>
        (await enrollmentOf(series.id, 'bob@example.com'))[0]?.status === 'stopped' ? true : undefined,
      );
      expect(await enrollmentOf(series.id, 'bob@example.com')).toEqual([
        { status: 'stopped', steps_sent: 1, stopped_reason: 'unsubscribed' },
      ]);
      expect(await stepsMailedTo('bob@example.com')).toEqual(['Lesson 1']);
      const sends: Array<{ position: number; message: boolean }> = await t.db.query(
        `SELECT d.position, d.message_id IS NOT NULL AS message FROM newsletter_series_sends d
           JOIN newsletter_series_enrollments e ON e.id = d.enrollment_id
           JOIN newsletter_subscriptions s ON s.id = e.subscription_id
          WHERE e.series_id = $1 AND s.email = 'ada@example.com' ORDER BY d.id`,
        [series.id],
      );
      expect(sends).toEqual([
        { position: 1, message: true },
        { position: 2, message: true },
        { position: 3, message: true },
      ]);
      const got = await a.api.get(nl(a, `/series/${series.id}`)).expect(200);
      expect(got.body.enrollments).toEqual({ active: 0, completed: 1, stopped: 1 });
    }, 40000);

    it('pausing holds the steps; resuming releases those that fell due', async () => {
      const list = await makeList(a, { doubleOptIn: false });
      const series = await createSeries({ name: 'Held', listIds: [list.id], steps: [step('H1', 0), step('H2', 1)] });
      await join(list.id, 'cy@example.com');
      await eventually(async () => ((await stepsMailedTo('cy@example.com')).length === 1 ? true : undefined));
      await a.api
        .patch(nl(a, `/series/${series.id}`))
        .send({ status: 'paused' })
        .expect(200);
      await new Promise((r) => setTimeout(r, 2000));
      await sweep();
      expect(await stepsMailedTo('cy@example.com')).toEqual(['H1']);
      expect((await enrollmentOf(series.id, 'cy@example.com'))[0].status).toBe('active');
      await a.api
        .patch(nl(a, `/series/${series.id}`))
        .send({ status: 'active' })
        .expect(200);
      await eventually(async () => ((await stepsMailedTo('cy@example.com')).length === 2 ? true : undefined));
      expect(await stepsMailedTo('cy@example.com')).toEqual(['H1', 'H2']);
      expect(await enrollmentOf(series.id, 'cy@example.com')).toEqual([
        { status: 'completed', steps_sent: 2, stopped_reason: null },
      ]);
    }, 30000);

    it('editing the steps changes only those not sent yet', async () => {
      const list = await makeList(a, { doubleOptIn: false });
      const series = await createSeries({
        name: 'Edited',
        listIds: [list.id],
        steps: [step('E1 first draft', 0), step('E2 first draft', 3600)],
      });
      await join(list.id, 'di@example.com');
      await eventually(async () => ((await stepsMailedTo('di@example.com')).length === 1 ? true : undefined));
      const [s1, s2] = series.steps;
      const edited = await a.api
        .patch(nl(a, `/series/${series.id}`))
        .send({
          steps: [step('E1 edited', 0, { id: s1.id }), step('E2 edited', 1, { id: s2.id }), step('E3 added', 1)],
        })
        .expect(200);
      expect(edited.body.steps.map((s: { id: number; subject: string }) => [s.id, s.subject])).toEqual([
        [s1.id, 'E1 edited'],
        [s2.id, 'E2 edited'],
        [expect.any(Number), 'E3 added'],
      ]);
      await eventually(async () => ((await stepsMailedTo('di@example.com')).length === 3 ? true : undefined), 20000);
      expect(await stepsMailedTo('di@example.com')).toEqual(['E1 first draft', 'E2 edited', 'E3 added']);
      // Removing the steps someone received sends them nothing again.
      await a.api
        .patch(nl(a, `/series/${series.id}`))
        .send({ steps: [step('E3 added', 1, { id: edited.body.steps[2].id })] })
        .expect(200);
      await sweep();
      expect(await stepsMailedTo('di@example.com')).toEqual(['E1 first draft', 'E2 edited', 'E3 added']);
      expect((await enrollmentOf(series.id, 'di@example.com'))[0].status).toBe('completed');
    }, 40000);

    it('enrolls once: joining two trigger lists, leaving and joining again; members from before the series are not enrolled', async () => {
      const one = await makeList(a, { doubleOptIn: false });
      const two = await makeList(a, { doubleOptIn: false });
      await join(one.id, 'early@example.com');
      const series = await createSeries({ name: 'Once', listIds: [one.id, two.id], steps: [step('O1', 0)] });
      await join(one.id, 'eve@example.com');
      await join(two.id, 'eve@example.com');
      await eventually(async () => ((await stepsMailedTo('eve@example.com')).length === 1 ? true : undefined));
      const { manage } = await manageTokenOf('eve@example.com');
      await request(t.server).post(nl(a, '/unsubscribe')).send({ token: manage }).expect(200);
      await join(one.id, 'eve@example.com');
      await sweep();
      await sweep();
      expect(await stepsMailedTo('eve@example.com')).toEqual(['O1']);
      expect(await enrollmentOf(series.id, 'eve@example.com')).toHaveLength(1);
      expect(await enrollmentOf(series.id, 'early@example.com')).toEqual([]);
    }, 30000);

    it('mass writes with consent (sync) are enrolled by the sweep; deleting a subscription removes its enrollments', async () => {
      const list = await makeList(a, { doubleOptIn: false });
      const series = await createSeries({ name: 'Synced', listIds: [list.id], steps: [step('S1', 3600)] });
      await a.api
        .post(nl(a, '/subscriptions/sync'))
        .send({ listId: list.id, emails: ['m1@example.com', 'm2@example.com'], consent: true })
        .expect(200);
      const result = await sweep();
      expect(result.enrolled).toBeGreaterThanOrEqual(2);
      expect((await enrollmentOf(series.id, 'm1@example.com'))[0].status).toBe('active');
      const sub = await a.api.get(nl(a, '/subscriptions/by-email?email=m1%40example.com')).expect(200);
      await a.api.delete(nl(a, `/subscriptions/${sub.body.id}`)).expect(204);
      expect(await enrollmentOf(series.id, 'm1@example.com')).toEqual([]);
      expect(await enrollmentOf(series.id, 'm2@example.com')).toHaveLength(1);
    });

    it('a hand-over that fails records nothing; sweeps running at once send each step exactly once', async () => {
      const list = await makeList(a, { doubleOptIn: false });
      const series = await createSeries({ name: 'Once only', listIds: [list.id], steps: [step('C1', 0)] });
      // A sync with consent records no per-person event: only a sweep enrolls them.
      await a.api
        .post(nl(a, '/subscriptions/sync'))
        .send({ listId: list.id, emails: ['gus@example.com'], consent: true })
        .expect(200);
      const spy = jest.spyOn(t.app.get(EmailService), 'send').mockRejectedValueOnce(new Error('SMTP relay fell over'));
      try {
        await sweep();
      } finally {
        spy.mockRestore();
      }
      expect(await stepsMailedTo('gus@example.com')).toEqual([]);
      const sends: Array<{ n: number }> = await t.db.query(
        `SELECT count(*)::int AS n FROM newsletter_series_sends d JOIN newsletter_series_enrollments e
           ON e.id = d.enrollment_id WHERE e.series_id = $1`,
        [series.id],
      );
      expect(sends[0].n).toBe(0);
      expect(await enrollmentOf(series.id, 'gus@example.com')).toEqual([
        { status: 'active', steps_sent: 0, stopped_reason: null },
      ]);
      // Due again now; three sweeps race for it.
      await t.db.query('UPDATE newsletter_series_enrollments SET next_due_at = now() WHERE series_id = $1', [
        series.id,
      ]);
      await Promise.all([sweep(), sweep(), sweep()]);
      expect(await stepsMailedTo('gus@example.com')).toEqual(['C1']);
      expect(await enrollmentOf(series.id, 'gus@example.com')).toEqual([
        { status: 'completed', steps_sent: 1, stopped_reason: null },
      ]);
    });

    it('deleting a series stops it', async () => {
      const list = await makeList(a, { doubleOptIn: false });
      const series = await createSeries({ name: 'Stopped', listIds: [list.id], steps: [step('X1', 0), step('X2', 1)] });
      await join(list.id, 'fin@example.com');
      await eventually(async () => ((await stepsMailedTo('fin@example.com')).length === 1 ? true : undefined));
      await a.api.delete(nl(a, `/series/${series.id}`)).expect(204);
      await new Promise((r) => setTimeout(r, 1500));
      await sweep();
      expect(await stepsMailedTo('fin@example.com')).toEqual(['X1']);
      const rows: Array<{ n: number }> = await t.db.query(
        'SELECT count(*)::int AS n FROM newsletter_series_enrollments WHERE series_id = $1',
        [series.id],
      );
      expect(rows[0].n).toBe(0);
    }, 30000);
  });

  /** The preferences token of the newest mail to an address that has one, as it was received. */
  async function manageTokenOf(email: string): Promise<{ manage: string }> {
    return { manage: await mailedMatch(smtp, email, /newsletter\/preferences\/([\w.-]+)/) };
  }
});
