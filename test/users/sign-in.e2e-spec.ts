import request from 'supertest';
import { SiteUserEntity } from '../../src/users/entities/site-user.entity';
import { UserOtpEntity } from '../../src/users/entities/user-otp.entity';
import { UserSessionEntity } from '../../src/users/entities/user-session.entity';
import { startApp, TestApp } from '../support/app';
import { createFreshDatabase } from '../support/databases';
import { eventsOf, lastEventId } from '../support/events';
import { ISO } from '../support/matchers';
import { expectProblem } from '../support/problem';
import { startSmtpSink, SmtpSink } from '../support/smtp';
import { createTenant, Tenant } from '../support/tenant';

/** Sign-in by one-time password, the code read from the mail an in-process SMTP server receives. */
describe('site users: one-time-password sign-in and sessions', () => {
  let smtp: SmtpSink;
  let t: TestApp;
  let a: Tenant;
  let b: Tenant;
  const users = (x: Tenant, rest = '') => `/api/v2/sites/${x.siteName}/users${rest}`;
  const anonymous = () => request(t.server);

  beforeAll(async () => {
    smtp = await startSmtpSink();
    t = await startApp({ databaseUrl: await createFreshDatabase('signin'), env: { SMTP_URL: smtp.url } });
    [a, b] = await Promise.all([createTenant(t), createTenant(t)]);
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  /** The code of the newest mail to `email`. */
  async function codeFor(email: string, count = 1): Promise<string> {
    const mails = await smtp.waitFor(count, undefined);
    const mine = smtp.received.filter((m) => m.to.includes(email));
    const text = mine[mine.length - 1]?.parsed.text ?? '';
    const code = /\b(\d{6})\b/.exec(text)?.[1];
    if (!code) throw new Error(`no code in the mail to ${email} (${mails.length} mails)`);
    return code;
  }
  const mailsTo = (email: string) => smtp.received.filter((m) => m.to.includes(email)).length;
  const waitForMailTo = async (email: string, n: number) => {
    const deadline = Date.now() + 15000;
    while (mailsTo(email) < n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(mailsTo(email)).toBe(n);
  };

  async function signIn(x: Tenant, email: string): Promise<{ token: string; userId: number }> {
    const before = mailsTo(email);
    await anonymous().post(users(x, '/request-otp')).send({ email }).expect(202);
    await waitForMailTo(email, before + 1);
    const res = await anonymous()
      .post(users(x, '/verify-otp'))
      .send({ email, code: await codeFor(email) })
      .expect(200);
    return { token: res.body.accessToken as string, userId: res.body.user.id as number };
  }

  it('an unknown and a known address get the same answer; the first verified code creates the user', async () => {
    const after = await lastEventId(t);
    const unknown = await anonymous().post(users(a, '/request-otp')).send({ email: 'Ada@Example.com' }).expect(202);
    expect(unknown.body).toEqual({
      message: 'If the address can sign in, a code is on its way.',
      expiresInSeconds: 600,
    });
    await waitForMailTo('ada@example.com', 1);
    const [mail] = smtp.received.filter((m) => m.to.includes('ada@example.com'));
    const code = await codeFor('ada@example.com');
    // The code is in the body, never the subject (notifications and mail listings show subjects).
    expect(mail.parsed.subject).toMatch(/^Your sign-in code for\b/);
    expect(mail.parsed.subject).not.toContain(code);
    const otp = await t.db.getRepository(UserOtpEntity).findOneByOrFail({ email: 'ada@example.com', siteId: a.siteId });
    expect(otp.codeHash).not.toContain(code);
    expect(await t.db.getRepository(SiteUserEntity).countBy({ siteId: a.siteId })).toBe(0);

    const verified = await anonymous()
      .post(users(a, '/verify-otp'))
      .send({ email: 'ada@example.com', code })
      .expect(200);
    expect(verified.body).toEqual({
      accessToken: expect.stringMatching(/^sbs_[A-Za-z0-9_-]{43}$/),
      expiresAt: ISO,
      user: {
        id: expect.any(Number),
        email: 'ada@example.com',
        name: '',
        status: 'active',
        metadata: {},
        emailVerifiedAt: ISO,
        lastSignInAt: ISO,
        createdAt: ISO,
        updatedAt: ISO,
      },
    });
    const session = await t.db.getRepository(UserSessionEntity).findOneByOrFail({ userId: verified.body.user.id });
    expect(session.tokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(session.tokenHash).not.toBe(verified.body.accessToken);
    const userEvents = (await eventsOf(t, a, after)).filter((e) => e.name.startsWith('user.'));
    expect(userEvents.map((e) => [e.name, e.payload])).toEqual([
      ['user.created', { id: verified.body.user.id, status: 'active' }],
      ['user.signed_in', { id: verified.body.user.id, sessionId: session.id }],
    ]);

    // Now known: the same answer, and a code too (after the resend wait).
    await t.db.query(`UPDATE user_otps SET created_at = now() - interval '2 minutes' WHERE email = 'ada@example.com'`);
    const known = await anonymous().post(users(a, '/request-otp')).send({ email: 'ada@example.com' }).expect(202);
    expect(known.body).toEqual(unknown.body);
    await waitForMailTo('ada@example.com', 2);
  });

  it('a code works once; a second request within a minute sends nothing new', async () => {
    const email = 'once@example.com';
    await anonymous().post(users(a, '/request-otp')).send({ email }).expect(202);
    await waitForMailTo(email, 1);
    await anonymous().post(users(a, '/request-otp')).send({ email }).expect(202);
    await new Promise((r) => setTimeout(r, 1500));
    expect(mailsTo(email)).toBe(1);
    const code = await codeFor(email);
    await anonymous().post(users(a, '/verify-otp')).send({ email, code }).expect(200);
    expectProblem(await anonymous().post(users(a, '/verify-otp')).send({ email, code }), 401, 'invalid_code');
  });

  it('a wrong code is a 401 and counts; after five attempts even the right code fails', async () => {
    const email = 'guess@example.com';
    await anonymous().post(users(a, '/request-otp')).send({ email }).expect(202);
    await waitForMailTo(email, 1);
    const code = await codeFor(email);
    const wrong = code === '000000' ? '000001' : '000000';
    for (let i = 0; i < 5; i++)
      expectProblem(await anonymous().post(users(a, '/verify-otp')).send({ email, code: wrong }), 401, 'invalid_code');
    expect((await t.db.getRepository(UserOtpEntity).findOneByOrFail({ email, siteId: a.siteId })).attempts).toBe(5);
    expectProblem(await anonymous().post(users(a, '/verify-otp')).send({ email, code }), 401, 'invalid_code');
    expect(await t.db.getRepository(SiteUserEntity).countBy({ siteId: a.siteId, email })).toBe(0);
  });

  it('an expired code fails; a code of another site fails', async () => {
    const email = 'late@example.com';
    await anonymous().post(users(a, '/request-otp')).send({ email }).expect(202);
    await waitForMailTo(email, 1);
    const code = await codeFor(email);
    expectProblem(await anonymous().post(users(b, '/verify-otp')).send({ email, code }), 401, 'invalid_code');
    await t.db.query(`UPDATE user_otps SET expires_at = now() - interval '1 second' WHERE email = $1`, [email]);
    expectProblem(await anonymous().post(users(a, '/verify-otp')).send({ email, code }), 401, 'invalid_code');
  });

  it('bad input is a 400 naming the field', async () => {
    const bad = await anonymous().post(users(a, '/request-otp')).send({ email: 'not an address' });
    expectProblem(bad, 400, 'validation_failed');
    expect(bad.body.errors[0].path).toBe('email');
    const short = await anonymous().post(users(a, '/verify-otp')).send({ email: 'a@example.com', code: '123' });
    expectProblem(short, 400, 'validation_failed');
    expect(short.body.errors[0].path).toBe('code');
  });

  it('a session reaches /me of its site only; operator routes refuse it; a key has no /me', async () => {
    const { token, userId } = await signIn(a, 'me@example.com');
    const me = await anonymous().get(users(a, '/me')).set('authorization', `Bearer ${token}`).expect(200);
    expect(me.body).toEqual(expect.objectContaining({ id: userId, email: 'me@example.com' }));
    expectProblem(
      await anonymous().get(users(b, '/me')).set('authorization', `Bearer ${token}`),
      401,
      'invalid_session',
    );
    expectProblem(await anonymous().get(users(a)).set('authorization', `Bearer ${token}`), 403, 'session_not_allowed');
    expectProblem(await a.api.get(users(a, '/me')), 403, 'session_required');
    // A session-only route asks for a session, not for a key (issue #30, row 12).
    const none = await anonymous().get(users(a, '/me'));
    expectProblem(none, 401, 'missing_credential');
    expect(none.body.detail).toBe("A site user's session (Authorization: Bearer <session token>) is required");
    expectProblem(
      await anonymous().get(users(a, '/me')).set('authorization', 'Bearer sbs_forged'),
      401,
      'invalid_session',
    );
  });

  it('signing out ends the session at once; disabling the user ends all and refuses sign-in', async () => {
    const first = await signIn(a, 'leaving@example.com');
    await t.db.query(
      `UPDATE user_otps SET created_at = now() - interval '2 minutes' WHERE email = 'leaving@example.com'`,
    );
    const second = await signIn(a, 'leaving@example.com');
    await anonymous().post(users(a, '/me/sign-out')).set('authorization', `Bearer ${first.token}`).expect(204);
    expectProblem(
      await anonymous().get(users(a, '/me')).set('authorization', `Bearer ${first.token}`),
      401,
      'invalid_session',
    );
    await anonymous().get(users(a, '/me')).set('authorization', `Bearer ${second.token}`).expect(200);

    await a.api
      .patch(users(a, `/${second.userId}`))
      .send({ status: 'disabled' })
      .expect(200);
    expectProblem(
      await anonymous().get(users(a, '/me')).set('authorization', `Bearer ${second.token}`),
      401,
      'invalid_session',
    );
    const sessions = await t.db.getRepository(UserSessionEntity).findBy({ userId: second.userId });
    expect(sessions.every((s) => s.revokedAt !== null)).toBe(true);
    await t.db.query(
      `UPDATE user_otps SET created_at = now() - interval '2 minutes' WHERE email = 'leaving@example.com'`,
    );
    const before = mailsTo('leaving@example.com');
    await anonymous().post(users(a, '/request-otp')).send({ email: 'leaving@example.com' }).expect(202);
    await waitForMailTo('leaving@example.com', before + 1);
    const code = await codeFor('leaving@example.com');
    expectProblem(
      await anonymous().post(users(a, '/verify-otp')).send({ email: 'leaving@example.com', code }),
      403,
      'user_disabled',
    );
  });

  it('a new address changes only once its mailed code is verified', async () => {
    const { token, userId } = await signIn(a, 'old@example.com');
    const auth = { authorization: `Bearer ${token}` };
    const patched = await anonymous()
      .patch(users(a, '/me'))
      .set(auth)
      .send({ name: 'Grace', email: 'New@Example.com' })
      .expect(200);
    expect(patched.body).toEqual(
      expect.objectContaining({ id: userId, name: 'Grace', email: 'old@example.com', pendingEmail: 'new@example.com' }),
    );
    await waitForMailTo('new@example.com', 1);
    const code = await codeFor('new@example.com');
    expectProblem(
      await anonymous()
        .post(users(a, '/me/verify-email'))
        .set(auth)
        .send({ code: code === '999999' ? '999998' : '999999' }),
      401,
      'invalid_code',
    );
    expect((await t.db.getRepository(SiteUserEntity).findOneByOrFail({ id: userId })).email).toBe('old@example.com');
    const verified = await anonymous().post(users(a, '/me/verify-email')).set(auth).send({ code }).expect(200);
    expect(verified.body.email).toBe('new@example.com');
    const me = await anonymous().get(users(a, '/me')).set(auth).expect(200);
    expect([me.body.email, me.body.name]).toEqual(['new@example.com', 'Grace']);
  });
});

describe('site users: limits shared by instances', () => {
  let t: TestApp;
  let a: Tenant;

  beforeAll(async () => {
    t = await startApp({
      databaseUrl: await createFreshDatabase('otplimits'),
      env: { USER_OTP_IP_HOURLY_LIMIT: '4', USER_OTP_EMAIL_HOURLY_LIMIT: '2', USER_OTP_RESEND_SECONDS: '0' },
    });
    a = await createTenant(t);
  });
  afterAll(() => t.close());

  it('an address gets its hourly share of codes, silently; an IP past its share gets 429', async () => {
    const url = `/api/v2/sites/${a.siteName}/users/request-otp`;
    for (let i = 0; i < 3; i++) await request(t.server).post(url).send({ email: 'flood@example.com' }).expect(202);
    // Two codes were made; the third request answered the same and made none.
    expect(await t.db.getRepository(UserOtpEntity).countBy({ email: 'flood@example.com' })).toBe(2);
    await request(t.server).post(url).send({ email: 'other@example.com' }).expect(202);
    const refused = await request(t.server).post(url).send({ email: 'third@example.com' });
    expectProblem(refused, 429, 'rate_limited');
    expect(refused.headers['retry-after']).toMatch(/^\d+$/);
  });
});
