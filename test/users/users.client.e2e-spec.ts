import { SiteUserEntity } from '../../src/users/entities/site-user.entity';
import { hashOtpCode } from '../../src/users/auth/otp-code';
import { SessionsService } from '../../src/users/auth/sessions.service';
import { withClient } from '../support/api-client';
import { eventually } from '../support/app';

/**
 * Every Site users operation built so far through the generated client (docs/openapi.md). The
 * mailed code is replaced by a known one in the database: the mail itself is test/users/sign-in's.
 */
describe('generated client: site users', () => {
  const s = withClient(2);
  const site = () => ({ siteName: s.a.siteName });

  it('sign in, /me, profile, sign out; operators list, get, update and read the profile', async () => {
    const requested = await s.api.POST('/api/v2/sites/{siteName}/users/request-otp', {
      params: { path: site() },
      body: { email: 'client@example.com' },
    });
    expect([requested.response.status, requested.data?.expiresInSeconds]).toEqual([202, 600]);
    await s.t.db.query(`UPDATE user_otps SET salt = 's', code_hash = $1 WHERE email = 'client@example.com'`, [
      hashOtpCode('s', '123456'),
    ]);
    const verified = await s.api.POST('/api/v2/sites/{siteName}/users/verify-otp', {
      params: { path: site() },
      body: { email: 'client@example.com', code: '123456' },
    });
    expect(verified.response.status).toBe(200);
    const me = s.contract.asSession(verified.data!.accessToken);
    const userId = verified.data!.user.id;

    const got = await me.GET('/api/v2/sites/{siteName}/users/me', { params: { path: site() } });
    expect(got.data?.email).toBe('client@example.com');
    const patched = await me.PATCH('/api/v2/sites/{siteName}/users/me', {
      params: { path: site() },
      body: { name: 'Client' },
    });
    expect([patched.data?.name, patched.data?.pendingEmail]).toEqual(['Client', null]);
    const put = await me.PUT('/api/v2/sites/{siteName}/users/me/profile/{key}', {
      params: { path: { ...site(), key: 'theme' } },
      body: { value: { mode: 'dark' } },
    });
    expect(put.data).toEqual(expect.objectContaining({ key: 'theme', value: { mode: 'dark' } }));
    const profile = await me.GET('/api/v2/sites/{siteName}/users/me/profile', { params: { path: site() } });
    expect(profile.data?.entries.map((e) => e.key)).toEqual(['theme']);
    const operatorView = await s.api.GET('/api/v2/sites/{siteName}/users/{id}/profile', {
      params: { path: { ...site(), id: userId } },
    });
    expect(operatorView.data?.entries).toEqual(profile.data?.entries);
    const removed = await me.DELETE('/api/v2/sites/{siteName}/users/me/profile/{key}', {
      params: { path: { ...site(), key: 'theme' } },
    });
    expect(removed.response.status).toBe(204);
    const wrongCode = await me.POST('/api/v2/sites/{siteName}/users/me/verify-email', {
      params: { path: site() },
      body: { code: '000000' },
    });
    expect([wrongCode.response.status, wrongCode.error?.code]).toEqual([401, 'invalid_code']);

    const list = await s.api.GET('/api/v2/sites/{siteName}/users', {
      params: { path: site(), query: { email: 'client@', status: 'active' } },
    });
    expect(list.data!.data.map((u) => u.id)).toEqual([userId]);
    const one = await s.api.GET('/api/v2/sites/{siteName}/users/{id}', { params: { path: { ...site(), id: userId } } });
    expect([one.data?.name, one.data?.metadata]).toEqual(['Client', {}]);
    // metadata is the operators' (PATCH /me refuses it).
    const updated = await s.api.PATCH('/api/v2/sites/{siteName}/users/{id}', {
      params: { path: { ...site(), id: userId } },
      body: { name: 'Renamed', metadata: { plan: 'gold' } },
    });
    expect([updated.data?.name, updated.data?.metadata]).toEqual(['Renamed', { plan: 'gold' }]);
    expect((await s.t.db.getRepository(SiteUserEntity).findOneByOrFail({ id: userId })).name).toBe('Renamed');

    const granted = await s.api.POST('/api/v2/sites/{siteName}/users/{id}/credits/grant', {
      params: { path: { ...site(), id: userId } },
      body: { amount: 50, reason: 'Welcome' },
    });
    expect([granted.response.status, granted.data?.balance]).toEqual([201, 50]);
    const spent = await s.api.POST('/api/v2/sites/{siteName}/users/{id}/credits/spend', {
      params: { path: { ...site(), id: userId } },
      body: { amount: 20, reason: 'Report' },
    });
    expect(spent.data?.balance).toBe(30);
    const short = await s.api.POST('/api/v2/sites/{siteName}/users/{id}/credits/spend', {
      params: { path: { ...site(), id: userId } },
      body: { amount: 31, reason: 'Too much' },
    });
    expect([short.response.status, short.error?.code]).toEqual([409, 'insufficient_credits']);
    const operatorBalance = await s.api.GET('/api/v2/sites/{siteName}/users/{id}/credits/balance', {
      params: { path: { ...site(), id: userId } },
    });
    expect(operatorBalance.data).toEqual({ balance: 30 });
    const operatorLedger = await s.api.GET('/api/v2/sites/{siteName}/users/{id}/credits', {
      params: { path: { ...site(), id: userId } },
    });
    expect(operatorLedger.data?.data.map((e) => e.amount)).toEqual([-20, 50]);
    const myBalance = await me.GET('/api/v2/sites/{siteName}/users/me/credits/balance', { params: { path: site() } });
    expect(myBalance.data).toEqual({ balance: 30 });
    const myLedger = await me.GET('/api/v2/sites/{siteName}/users/me/credits', {
      params: { path: site(), query: { limit: 1 } },
    });
    expect(myLedger.data?.data.map((e) => e.kind)).toEqual(['spend']);

    const preview = await me.GET('/api/v2/sites/{siteName}/users/me/deletion-preview', { params: { path: site() } });
    expect(preview.data?.resources).toEqual(
      expect.arrayContaining([{ resource: 'credits', count: 30, action: 'forfeit' }]),
    );
    const none = await me.GET('/api/v2/sites/{siteName}/users/me/deletion', { params: { path: site() } });
    expect([none.response.status, none.error?.code]).toEqual([404, 'deletion_not_found']);

    const out = await me.POST('/api/v2/sites/{siteName}/users/me/sign-out', { params: { path: site() } });
    expect(out.response.status).toBe(204);
    const after = await me.GET('/api/v2/sites/{siteName}/users/me', { params: { path: site() } });
    expect([after.response.status, after.error?.code]).toEqual([401, 'invalid_session']);
  });

  it('erasure: schedule (the session ends), status and cancel from a new session', async () => {
    const user = await s.t.db
      .getRepository(SiteUserEntity)
      .save({ siteId: s.a.siteId, email: 'leaving-client@example.com', name: '', status: 'active', metadata: {} });
    const session = async () =>
      s.contract.asSession((await s.t.db.transaction((em) => s.t.app.get(SessionsService).create(em, user, {}))).token);
    const first = await session();
    const scheduled = await first.DELETE('/api/v2/sites/{siteName}/users/me', { params: { path: site() } });
    expect([scheduled.response.status, scheduled.data?.status]).toEqual([202, 'scheduled']);
    const second = await session();
    const status = await second.GET('/api/v2/sites/{siteName}/users/me/deletion', { params: { path: site() } });
    expect(status.data?.id).toBe(scheduled.data?.id);
    const canceled = await second.DELETE('/api/v2/sites/{siteName}/users/me/deletion', { params: { path: site() } });
    expect([canceled.response.status, canceled.data?.status]).toEqual([200, 'canceled']);
  });

  it('subscriptions: a paid recurring order starts one; the owner and operators move it; a charge', async () => {
    const user = await s.t.db
      .getRepository(SiteUserEntity)
      .save({ siteId: s.a.siteId, email: 'sub-client@example.com', name: 'Sub', status: 'active', metadata: {} });
    const me = s.contract.asSession(
      (await s.t.db.transaction((em) => s.t.app.get(SessionsService).create(em, user, {}))).token,
    );
    const recurring = { interval: 'month' as const, intervalCount: 1 };
    const plan = await s.api.POST('/api/v2/sites/{siteName}/products', {
      params: { path: site() },
      body: { name: 'Plan', unitAmount: 1000, currency: 'EUR', recurring },
    });
    const bigger = await s.api.POST('/api/v2/sites/{siteName}/products', {
      params: { path: site() },
      body: { name: 'Bigger plan', unitAmount: 2000, currency: 'EUR', recurring },
    });
    const order = await me.POST('/api/v2/sites/{siteName}/orders', {
      params: { path: site() },
      body: { lines: [{ productId: plan.data!.id, quantity: 1 }] },
    });
    expect([order.response.status, order.data?.userId]).toEqual([201, user.id]);
    const mine = await me.GET('/api/v2/sites/{siteName}/orders', { params: { path: site() } });
    expect(mine.data?.data.map((o) => o.id)).toEqual([order.data!.id]);
    await s.api.PATCH('/api/v2/sites/{siteName}/orders/{id}/payment', {
      params: { path: { ...site(), id: order.data!.id } },
      body: { paymentStatus: 'paid' },
    });
    const listed = await eventually(async () => {
      const res = await s.api.GET('/api/v2/sites/{siteName}/users/{id}/subscriptions', {
        params: { path: { ...site(), id: user.id } },
      });
      return res.data?.data.length ? res.data.data : undefined;
    });
    const sub = { ...site(), id: user.id, subId: listed[0].id };
    const own = { ...site(), id: listed[0].id };

    const paused = await s.api.POST('/api/v2/sites/{siteName}/users/{id}/subscriptions/{subId}/pause', {
      params: { path: sub },
      body: {},
    });
    expect(paused.data?.status).toBe('paused');
    const resumed = await s.api.POST('/api/v2/sites/{siteName}/users/{id}/subscriptions/{subId}/resume', {
      params: { path: sub },
    });
    expect(resumed.data?.status).toBe('active');
    const changed = await s.api.POST('/api/v2/sites/{siteName}/users/{id}/subscriptions/{subId}/change-plan', {
      params: { path: sub },
      body: { productId: bigger.data!.id, prorate: false },
    });
    expect([changed.data?.subscription.unitAmount, changed.data?.prorations, changed.data?.entries]).toEqual([
      2000,
      [],
      [],
    ]);
    const charged = await s.api.POST('/api/v2/sites/{siteName}/users/{id}/subscriptions/{subId}/charges', {
      params: { path: sub },
      body: { amount: 300, description: 'Setup' },
    });
    expect([charged.response.status, charged.data?.charge.status]).toEqual([201, 'pending']);
    const paid = await s.api.POST('/api/v2/sites/{siteName}/users/{id}/subscriptions/{subId}/charges/{chargeId}/pay', {
      params: { path: { ...sub, chargeId: charged.data!.charge.id } },
      body: { paidOutOfBand: true, reference: 'Cash' },
    });
    expect([paid.response.status, paid.data?.charge.paidWith, paid.data?.charge.processorChargeId]).toEqual([
      200,
      'out_of_band',
      'Cash',
    ]);

    const ownList = await me.GET('/api/v2/sites/{siteName}/users/me/subscriptions', { params: { path: site() } });
    expect(ownList.data?.data.map((x) => x.id)).toEqual([listed[0].id]);
    const ownPause = await me.POST('/api/v2/sites/{siteName}/users/me/subscriptions/{id}/pause', {
      params: { path: own },
      body: {},
    });
    expect(ownPause.data?.status).toBe('paused');
    const ownResume = await me.POST('/api/v2/sites/{siteName}/users/me/subscriptions/{id}/resume', {
      params: { path: own },
    });
    expect(ownResume.data?.status).toBe('active');
    const ownChange = await me.POST('/api/v2/sites/{siteName}/users/me/subscriptions/{id}/change-plan', {
      params: { path: own },
      body: { productId: plan.data!.id },
    });
    // Theirs is prorated: the unused bigger plan credited, paying the smaller one's rest of the period.
    expect(ownChange.data?.entries.map((e) => [e.kind, e.status])).toEqual([
      ['proration', 'recorded'],
      ['proration', 'paid'],
    ]);
    const ownCancel = await me.POST('/api/v2/sites/{siteName}/users/me/subscriptions/{id}/cancel', {
      params: { path: own },
      body: { atPeriodEnd: true },
    });
    expect(ownCancel.data?.cancelAtPeriodEnd).toBe(true);
    const canceled = await s.api.POST('/api/v2/sites/{siteName}/users/{id}/subscriptions/{subId}/cancel', {
      params: { path: sub },
      body: {},
    });
    expect(canceled.data?.status).toBe('canceled');
    const again = await s.api.POST('/api/v2/sites/{siteName}/users/{id}/subscriptions/{subId}/resume', {
      params: { path: sub },
    });
    expect([again.response.status, again.error?.code]).toEqual([409, 'transition_forbidden']);
  });

  it('called every Site users operation through the client', () => {
    expect(s.contract.uncalled(['Site users'])).toEqual([]);
  });
});
