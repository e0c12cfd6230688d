import request from 'supertest';
import { EmailMessageEntity } from '../../src/email/entities/email-message.entity';
import { SiteUserEntity } from '../../src/users/entities/site-user.entity';
import { UserOtpEntity } from '../../src/users/entities/user-otp.entity';
import { eventually, startApp, TestApp } from '../support/app';
import { createFreshDatabase } from '../support/databases';
import { eventsOf, lastEventId } from '../support/events';
import { ISO } from '../support/matchers';
import { expectProblem } from '../support/problem';
import { ReceivedMail, startSmtpSink, SmtpSink } from '../support/smtp';
import { createTenant, Tenant } from '../support/tenant';
import { receivedCopy } from '../support/mail-copies';

/**
 * Issue #29, rows 3, 4, 5 and 7: the fields a user owns, and identity changes as guarded as
 * sign-in (docs/users.md, "Limits"). Mail is read from the SMTP sink, and counted in
 * `email_messages` (recorded in the request's transaction, so a count right after the answer is exact).
 */
describe('site users: fields by owner, identity changes as guarded as sign-in', () => {
  let smtp: SmtpSink;
  let t: TestApp;
  const url = (x: Tenant, rest = '') => `/api/v2/sites/${x.siteName}/users${rest}`;
  const anonymous = () => request(t.server);
  /** A newsletter list, as an operator makes it. */
  const makeList = async (x: Tenant, body: Record<string, unknown>): Promise<{ id: number }> =>
    (await x.api.post(`/api/v2/sites/${x.siteName}/newsletter/lists`).send(body).expect(201)).body as { id: number };
  /** A public subscribe, as a signup form sends it (no key). */
  const subscribe = (x: Tenant, body: Record<string, unknown>) =>
    anonymous().post(`/api/v2/sites/${x.siteName}/newsletter/subscribe`).send(body);

  beforeAll(async () => {
    smtp = await startSmtpSink();
    t = await startApp({ databaseUrl: await createFreshDatabase('identity'), env: { SMTP_URL: smtp.url } });
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  const messagesTo = (x: Tenant, email: string) =>
    t.db
      .getRepository(EmailMessageEntity)
      .find({ where: { siteId: x.siteId, recipient: email }, order: { id: 'ASC' } });
  /** The user.* events of `x` after `id` (delivery records email.sent meanwhile). */
  const userEvents = async (x: Tenant, id: number) =>
    (await eventsOf(t, x, id)).filter((e) => e.name.startsWith('user.'));
  /** The code of a recorded message, from the copy its recipient got (the stored one shows it redacted). */
  const codeIn = async (m: EmailMessageEntity) =>
    /\b(\d{6})\b/.exec((await receivedCopy(smtp, m.id)).parsed.text ?? '')![1];
  /** The first mail the SMTP sink received for `email`, once it has. */
  async function receivedBy(email: string): Promise<ReceivedMail> {
    const deadline = Date.now() + 15000;
    for (;;) {
      const found = smtp.received.find((m) => m.to.includes(email));
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no mail to ${email} within 15 s`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** A verified user of `x` with a session (the code read from the mail of the recorded message). */
  async function signIn(x: Tenant, email: string): Promise<{ auth: { authorization: string }; userId: number }> {
    await anonymous().post(url(x, '/request-otp')).send({ email }).expect(202);
    const mails = await messagesTo(x, email);
    const res = await anonymous()
      .post(url(x, '/verify-otp'))
      .send({ email, code: await codeIn(mails[mails.length - 1]) })
      .expect(200);
    return { auth: { authorization: `Bearer ${res.body.accessToken}` }, userId: res.body.user.id as number };
  }

  it('row 3: metadata is the operators’: PATCH /me with it is a 400 that changes nothing; a key still sets it', async () => {
    const a = await createTenant(t);
    const { auth, userId } = await signIn(a, 'gold@example.com');
    const before = await t.db.getRepository(SiteUserEntity).findOneByOrFail({ id: userId });
    const after = await lastEventId(t);

    const refused = await anonymous()
      .patch(url(a, '/me'))
      .set(auth)
      .send({ name: 'Goldie', metadata: { plan: 'gold', role: 'admin' } });
    expectProblem(refused, 400, 'validation_failed');
    expect(refused.body.errors.map((e: { path: string }) => e.path)).toEqual(['metadata']);
    expectProblem(
      await anonymous().patch(url(a, '/me')).set(auth).send({ status: 'active' }),
      400,
      'validation_failed',
    );
    const row = await t.db.getRepository(SiteUserEntity).findOneByOrFail({ id: userId });
    expect([row.name, row.metadata, row.updatedAt]).toEqual([before.name, {}, before.updatedAt]);
    expect(await userEvents(a, after)).toEqual([]);

    // Profile entries stay the user's own; metadata is set by an operator.
    await anonymous().put(url(a, '/me/profile/plan')).set(auth).send({ value: 'wished' }).expect(200);
    const granted = await a.api
      .patch(url(a, `/${userId}`))
      .send({ metadata: { plan: 'gold' } })
      .expect(200);
    expect(granted.body.metadata).toEqual({ plan: 'gold' });
    const me = await anonymous().get(url(a, '/me')).set(auth).expect(200);
    expect(me.body.metadata).toEqual({ plan: 'gold' });
  });

  it('the document marks who owns each field: metadata operator-only, server fields read-only', async () => {
    const doc = (await anonymous().get('/docs/openapi.json').expect(200)).body as {
      components: {
        schemas: Record<string, { properties: Record<string, { description?: string; readOnly?: boolean }> }>;
      };
    };
    const user = doc.components.schemas.UserResponseDto.properties;
    expect(user.metadata.description).toMatch(/Changed only by an operator/);
    expect(user.name.description).toMatch(/Changed by the user/);
    expect([user.id.readOnly, user.createdAt.readOnly, user.name.readOnly]).toEqual([true, true, undefined]);
    expect(Object.keys(doc.components.schemas.UpdateMeDto.properties).sort()).toEqual(['email', 'name']);
  });

  it('row 4: the email-change code mail carries no name; the user’s hourly share of changes then answers 429 and changes nothing', async () => {
    const a = await createTenant(t);
    const phishing = 'Your account is locked, call +1 555 0100';
    const { auth, userId } = await signIn(a, 'asker@example.com');
    for (let i = 1; i <= 10; i++) {
      const res = await anonymous()
        .patch(url(a, '/me'))
        .set(auth)
        .send({ name: `${phishing} ${i}`, email: `target${i}@example.com` })
        .expect(200);
      expect([res.body.name, res.body.email, res.body.pendingEmail]).toEqual([
        `${phishing} ${i}`,
        'asker@example.com',
        `target${i}@example.com`,
      ]);
    }
    const sent = await t.db
      .getRepository(EmailMessageEntity)
      .find({ where: { siteId: a.siteId, templateType: 'users.otp' }, order: { id: 'ASC' } });
    expect(sent.map((m) => m.recipient)).toEqual([
      'asker@example.com',
      ...Array.from({ length: 10 }, (_, i) => `target${i + 1}@example.com`),
    ]);
    for (const m of sent.slice(1)) {
      expect(m.tags).toEqual(['email-change']);
      expect(`${m.subject} ${m.html} ${m.text} ${m.toHeader}`).not.toMatch(/locked|Hello/);
    }
    // As received: the greeting has no name.
    const received = await receivedBy('target1@example.com');
    expect(received.parsed.text).toMatch(/Here is your code/);
    expect(received.parsed.text).not.toContain('locked');

    const otps = await t.db.getRepository(UserOtpEntity).countBy({ siteId: a.siteId });
    const after = await lastEventId(t);
    const refused = await anonymous()
      .patch(url(a, '/me'))
      .set(auth)
      .send({ name: 'Changed by the 11th', email: 'target11@example.com' });
    expectProblem(refused, 429, 'rate_limited');
    expect(refused.headers['retry-after']).toMatch(/^[1-9]\d*$/);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(3600);
    // Nothing changed: not the name, no code, no mail, no event.
    expect((await t.db.getRepository(SiteUserEntity).findOneByOrFail({ id: userId })).name).toBe(`${phishing} 10`);
    expect(await t.db.getRepository(UserOtpEntity).countBy({ siteId: a.siteId })).toBe(otps);
    expect(await messagesTo(a, 'target11@example.com')).toEqual([]);
    expect(await userEvents(a, after)).toEqual([]);
    // A name alone is no code mail: not limited.
    await anonymous().patch(url(a, '/me')).set(auth).send({ name: 'Plain' }).expect(200);
  });

  it('row 4: an address’s codes are shared by sign-in and email change (resend wait): past it, the same 200 and nothing mailed', async () => {
    const a = await createTenant(t);
    const { auth, userId } = await signIn(a, 'mover@example.com');
    await anonymous().post(url(a, '/request-otp')).send({ email: 'mailbox@example.com' }).expect(202);
    expect(await messagesTo(a, 'mailbox@example.com')).toHaveLength(1);
    // Within the resend wait of the sign-in code: the same answer, no second code to the mailbox.
    const res = await anonymous().patch(url(a, '/me')).set(auth).send({ email: 'mailbox@example.com' }).expect(200);
    expect(res.body).toEqual({
      id: userId,
      email: 'mover@example.com',
      name: '',
      status: 'active',
      metadata: {},
      emailVerifiedAt: ISO,
      lastSignInAt: ISO,
      createdAt: ISO,
      updatedAt: ISO,
      pendingEmail: 'mailbox@example.com',
    });
    expect(await messagesTo(a, 'mailbox@example.com')).toHaveLength(1);
    expect(await t.db.getRepository(UserOtpEntity).countBy({ siteId: a.siteId, purpose: 'email_change' })).toBe(0);
  });

  it('row 5: wrong codes to verify-email count against the IP’s hourly share (429 past it) and the code’s attempt cap', async () => {
    const a = await createTenant(t);
    // Two IP hits to sign in, one to ask for the change: 57 of the 60 an hour are left.
    const { auth } = await signIn(a, 'guesser@example.com');
    await anonymous().patch(url(a, '/me')).set(auth).send({ email: 'victim@example.com' }).expect(200);
    const [mail] = await messagesTo(a, 'victim@example.com');
    const right = await codeIn(mail);
    const wrong = right === '000000' ? '000001' : '000000';
    const statuses: number[] = [];
    for (let i = 0; i < 72; i++) {
      const res = await anonymous().post(url(a, '/me/verify-email')).set(auth).send({ code: wrong });
      statuses.push(res.status);
      if (res.status === 429) {
        expectProblem(res, 429, 'rate_limited');
        expect(res.headers['retry-after']).toMatch(/^[1-9]\d*$/);
        break;
      }
      expectProblem(res, 401, 'invalid_code');
    }
    expect(statuses).toEqual([...Array<number>(57).fill(401), 429]);
    // The code died at its fifth wrong try; the right one is refused too (now by the IP's share).
    expect((await t.db.getRepository(UserOtpEntity).findOneByOrFail({ email: 'victim@example.com' })).attempts).toBe(5);
    expectProblem(
      await anonymous().post(url(a, '/me/verify-email')).set(auth).send({ code: right }),
      429,
      'rate_limited',
    );
    expect((await t.db.getRepository(SiteUserEntity).findOneByOrFail({ siteId: a.siteId })).email).toBe(
      'guesser@example.com',
    );
  });

  it('a sign-in code greets by name only a verified address; an operator’s correction is not verified', async () => {
    const a = await createTenant(t);
    const { auth, userId } = await signIn(a, 'grace@example.com');
    await anonymous().patch(url(a, '/me')).set(auth).send({ name: 'Grace' }).expect(200);
    await t.db.query(`UPDATE user_otps SET created_at = now() - interval '2 minutes' WHERE site_id = $1`, [a.siteId]);
    await anonymous().post(url(a, '/request-otp')).send({ email: 'grace@example.com' }).expect(202);
    const verified = await messagesTo(a, 'grace@example.com');
    expect(verified.map((m) => /Hello Grace/.test(m.text ?? ''))).toEqual([false, true]);

    const corrected = await a.api
      .patch(url(a, `/${userId}`))
      .send({ email: 'someone-else@example.com' })
      .expect(200);
    expect([corrected.body.email, corrected.body.emailVerifiedAt]).toEqual(['someone-else@example.com', null]);
    await anonymous().post(url(a, '/request-otp')).send({ email: 'someone-else@example.com' }).expect(202);
    const [unverified] = await messagesTo(a, 'someone-else@example.com');
    expect(unverified.text).toMatch(/Here is your code/);
    expect(`${unverified.html} ${unverified.toHeader}`).not.toContain('Grace');
    // Signing in with it proves the address again.
    const signedIn = await anonymous()
      .post(url(a, '/verify-otp'))
      .send({ email: 'someone-else@example.com', code: await codeIn(unverified) })
      .expect(200);
    expect(signedIn.body.user).toEqual(expect.objectContaining({ id: userId, emailVerifiedAt: ISO }));
  });

  it('row 7: the newsletter confirmation carries no subscriber name, nor does a single opt-in welcome', async () => {
    const a = await createTenant(t);
    const [double, single] = [
      await makeList(a, { name: 'Digest' }),
      await makeList(a, { name: 'News', doubleOptIn: false }),
    ];
    const name = `Dear customer, your parcel is held: pay at evil.example ${'x'.repeat(140)}`.slice(0, 200);
    await subscribe(a, { email: 'reader@example.com', name, lists: [double.id] }).expect(202);
    await subscribe(a, { email: 'other-reader@example.com', name, lists: [single.id] }).expect(202);
    const [confirmation] = await messagesTo(a, 'reader@example.com');
    const [welcome] = await messagesTo(a, 'other-reader@example.com');
    expect([confirmation.templateType, welcome.templateType]).toEqual([
      'newsletter.confirmation',
      'newsletter.welcome',
    ]);
    for (const m of [confirmation, welcome]) {
      expect(`${m.subject} ${m.html} ${m.text} ${m.toHeader}`).not.toMatch(/parcel|evil/);
      expect(m.toHeader).toBe(m.recipient);
    }
    for (const email of ['reader@example.com', 'other-reader@example.com']) {
      const received = await receivedBy(email);
      expect(received.raw).not.toMatch(/parcel|evil/);
      expect(received.parsed.text).toMatch(/confirm|subscribed/i);
    }
  });
});

describe('site users: the daily share of codes per address, and its notice', () => {
  let smtp: SmtpSink;
  let t: TestApp;
  let a: Tenant;
  const url = (rest = '') => `/api/v2/sites/${a.siteName}/users${rest}`;
  const anonymous = () => request(t.server);
  const messagesTo = (email: string) =>
    t.db
      .getRepository(EmailMessageEntity)
      .find({ where: { siteId: a.siteId, recipient: email }, order: { id: 'ASC' } });
  const ask = (email: string) => anonymous().post(url('/request-otp')).send({ email }).expect(202);

  beforeAll(async () => {
    smtp = await startSmtpSink();
    t = await startApp({
      databaseUrl: await createFreshDatabase('otpdaily'),
      env: {
        SMTP_URL: smtp.url,
        USER_OTP_RESEND_SECONDS: '0',
        USER_OTP_EMAIL_DAILY_LIMIT: '3',
        USER_OTP_IP_HOURLY_LIMIT: '1000',
      },
    });
    a = await createTenant(t);
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  async function signIn(email: string): Promise<{ authorization: string }> {
    await ask(email);
    const mails = await messagesTo(email);
    const code = /\b(\d{6})\b/.exec((await receivedCopy(smtp, mails[mails.length - 1].id)).parsed.text ?? '')![1];
    const res = await anonymous().post(url('/verify-otp')).send({ email, code }).expect(200);
    return { authorization: `Bearer ${res.body.accessToken}` };
  }

  it('sign-in and email-change codes share it; the first refusal tells a verified owner once, and the answer stays 202', async () => {
    await signIn('owner@example.com');
    const first = await ask('owner@example.com');
    await ask('owner@example.com');
    // A fourth code to the same mailbox, asked by another user as their new address: refused silently.
    const changer = await signIn('changer@example.com');
    const change = await anonymous().patch(url('/me')).set(changer).send({ email: 'owner@example.com' }).expect(200);
    expect(change.body.pendingEmail).toBe('owner@example.com');
    const again = await ask('owner@example.com');
    expect(again.body).toEqual(first.body);

    const mails = await messagesTo('owner@example.com');
    expect(mails.map((m) => [m.templateType, m.tags])).toEqual([
      ['users.otp', ['sign-in']],
      ['users.otp', ['sign-in']],
      ['users.otp', ['sign-in']],
      ['users.otp_limit', ['sign-in', 'limit']],
    ]);
    const until = /no more will be sent until (\d{4}-\d\d-\d\d \d\d:\d\d) UTC/i.exec(mails[3].text ?? '')?.[1];
    expect(until).toBeDefined();
    const untilMs = Date.parse(`${until!.replace(' ', 'T')}:00Z`);
    expect(untilMs - Date.now()).toBeGreaterThan(23.9 * 3600_000);
    expect(untilMs - Date.now()).toBeLessThan(24.1 * 3600_000);
    expect(mails[3].text).toMatch(/3 sign-in codes were asked for your address/);
    expect(await t.db.getRepository(UserOtpEntity).countBy({ siteId: a.siteId, email: 'owner@example.com' })).toBe(3);
    const notice = await eventually(async () =>
      smtp.received.find((m) => m.to.includes('owner@example.com') && /paused/.test(m.parsed.subject ?? '')),
    );
    expect(notice.parsed.text).toMatch(/No more will be sent until/);
  });

  it('an address nobody verified gets its codes and then nothing: no notice to a stranger or an unproven user', async () => {
    for (let i = 0; i < 5; i++) await ask('stranger@example.com');
    expect((await messagesTo('stranger@example.com')).map((m) => m.templateType)).toEqual([
      'users.otp',
      'users.otp',
      'users.otp',
    ]);

    // A user whose address an operator corrected has not proven it.
    const user = await t.db
      .getRepository(SiteUserEntity)
      .save({ siteId: a.siteId, email: 'ordered@example.com', name: 'From an order', status: 'active', metadata: {} });
    await a.api
      .patch(url(`/${user.id}`))
      .send({ email: 'unproven@example.com' })
      .expect(200);
    for (let i = 0; i < 5; i++) await ask('unproven@example.com');
    const unproven = await messagesTo('unproven@example.com');
    expect(unproven.map((m) => m.templateType)).toEqual(['users.otp', 'users.otp', 'users.otp']);
    for (const m of unproven) expect(`${m.html} ${m.toHeader}`).not.toContain('From an order');
  });
});
