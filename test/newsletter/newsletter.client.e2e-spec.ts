import { eventually } from '../support/app';
import { formData, withClient } from '../support/api-client';
import { linksMailedTo } from './newsletter-fixtures';

/** Every Newsletter operation built so far (the audience), through the generated client (docs/openapi.md). */
describe('generated client: newsletter audience', () => {
  const s = withClient(2);
  const site = () => ({ siteName: s.a.siteName });

  it('lists: create, list, get, update, delete', async () => {
    const made = await s.api.POST('/api/v2/sites/{siteName}/newsletter/lists', {
      params: { path: site() },
      body: { name: 'Client list', doubleOptIn: false },
    });
    expect(made.response.status).toBe(201);
    const id = made.data!.id;
    const list = await s.api.GET('/api/v2/sites/{siteName}/newsletter/lists', {
      params: { path: site(), query: { limit: 10, visibility: 'public' } },
    });
    expect(list.data?.data.map((l) => l.id)).toEqual([id]);
    const got = await s.api.GET('/api/v2/sites/{siteName}/newsletter/lists/{id}', {
      params: { path: { ...site(), id } },
    });
    expect(got.data?.counts).toEqual({ pending: 0, active: 0, unsubscribed: 0 });
    const patched = await s.api.PATCH('/api/v2/sites/{siteName}/newsletter/lists/{id}', {
      params: { path: { ...site(), id } },
      body: { description: 'From the client' },
    });
    expect(patched.data?.description).toBe('From the client');
    const removed = await s.api.DELETE('/api/v2/sites/{siteName}/newsletter/lists/{id}', {
      params: { path: { ...site(), id } },
    });
    expect(removed.response.status).toBe(204);
  });

  it('public: subscribe, confirm, preferences page, unsubscribe', async () => {
    const anonymous = s.contract.as();
    const list = (
      await s.api.POST('/api/v2/sites/{siteName}/newsletter/lists', {
        params: { path: site() },
        body: { name: 'Double' },
      })
    ).data!;
    const subscribed = await anonymous.POST('/api/v2/sites/{siteName}/newsletter/subscribe', {
      params: { path: site() },
      body: { email: 'client@example.com', lists: [list.id], consentText: 'Yes please' },
    });
    expect([subscribed.response.status, subscribed.data]).toEqual([
      202,
      { accepted: true, confirmationRequired: true },
    ]);
    const { confirm } = await linksMailedTo(s.t, s.a, 'client@example.com');
    const confirmed = await anonymous.GET('/api/v2/sites/{siteName}/newsletter/confirm/{token}', {
      params: { path: { ...site(), token: confirm! } },
    });
    expect(confirmed.data).toEqual({
      result: 'confirmed',
      lists: [{ listId: list.id, name: 'Double', status: 'active' }],
    });
    const { manage } = await linksMailedTo(s.t, s.a, 'client@example.com');
    const page = await anonymous.GET('/api/v2/sites/{siteName}/newsletter/preferences/{token}', {
      params: { path: { ...site(), token: manage! } },
      parseAs: 'text',
    });
    expect(page.response.status).toBe(200);
    expect(page.data).toContain('client@example.com');
    const left = await anonymous.POST('/api/v2/sites/{siteName}/newsletter/unsubscribe', {
      params: { path: site() },
      body: { token: manage, listId: list.id, reason: 'Too many' },
    });
    expect(left.data?.lists).toEqual([{ listId: list.id, name: 'Double', status: 'unsubscribed' }]);
    // A confirmation's token posted (what the re-consent page's button does), as JSON.
    const second = (
      await s.api.POST('/api/v2/sites/{siteName}/newsletter/lists', {
        params: { path: site() },
        body: { name: 'Second' },
      })
    ).data!;
    await anonymous.POST('/api/v2/sites/{siteName}/newsletter/subscribe', {
      params: { path: site() },
      body: { email: 'client@example.com', lists: [second.id] },
    });
    const again = await linksMailedTo(s.t, s.a, 'client@example.com');
    const posted = await anonymous.POST('/api/v2/sites/{siteName}/newsletter/confirm', {
      params: { path: site() },
      body: { token: again.confirm! },
    });
    expect(posted.data).toEqual({
      result: 'confirmed',
      lists: [
        { listId: list.id, name: 'Double', status: 'unsubscribed' },
        { listId: second.id, name: 'Second', status: 'active' },
      ],
    });
  });

  it('series: create, list, get, update (pause), delete', async () => {
    const list = (
      await s.api.POST('/api/v2/sites/{siteName}/newsletter/lists', {
        params: { path: site() },
        body: { name: 'Series trigger', doubleOptIn: false },
      })
    ).data!;
    const made = await s.api.POST('/api/v2/sites/{siteName}/newsletter/series', {
      params: { path: site() },
      body: {
        name: 'Client series',
        listIds: [list.id],
        steps: [{ delaySeconds: 0, subject: 'Welcome', html: '<p>Hello</p>', previewText: 'Hi' }],
      },
    });
    expect(made.response.status).toBe(201);
    const id = made.data!.id;
    const page = await s.api.GET('/api/v2/sites/{siteName}/newsletter/series', {
      params: { path: site(), query: { limit: 10, status: 'active' } },
    });
    expect(page.data?.data.map((x) => x.id)).toEqual([id]);
    const got = await s.api.GET('/api/v2/sites/{siteName}/newsletter/series/{id}', {
      params: { path: { ...site(), id } },
    });
    expect(got.data?.steps.map((x) => x.subject)).toEqual(['Welcome']);
    const paused = await s.api.PATCH('/api/v2/sites/{siteName}/newsletter/series/{id}', {
      params: { path: { ...site(), id }, header: { 'If-Match': got.response.headers.get('etag')! } },
      body: { status: 'paused' },
    });
    expect(paused.data?.status).toBe('paused');
    const removed = await s.api.DELETE('/api/v2/sites/{siteName}/newsletter/series/{id}', {
      params: { path: { ...site(), id } },
    });
    expect(removed.response.status).toBe(204);
  });

  it('campaigns: create, list, get, update (schedule), test send, tracking, statistics, delete', async () => {
    const list = (
      await s.api.POST('/api/v2/sites/{siteName}/newsletter/lists', {
        params: { path: site() },
        body: { name: 'Campaign readers', doubleOptIn: false, visibility: 'private' },
      })
    ).data!;
    await s.api.POST('/api/v2/sites/{siteName}/newsletter/subscriptions/sync', {
      params: { path: site() },
      body: { listId: list.id, emails: ['reader@example.com'], consent: true },
    });
    const made = await s.api.POST('/api/v2/sites/{siteName}/newsletter/campaigns', {
      params: { path: site() },
      body: {
        name: 'Client campaign',
        subject: 'Hello',
        contentHtml: '<p><a href="https://blog.example/post">Read</a></p>',
        listIds: [list.id],
      },
    });
    expect(made.response.status).toBe(201);
    const id = made.data!.id;
    const listed = await s.api.GET('/api/v2/sites/{siteName}/newsletter/campaigns', {
      params: { path: site(), query: { limit: 5, status: 'draft' } },
    });
    expect(listed.data?.data.map((c) => c.id)).toContain(id);
    const bySlug = await s.api.GET('/api/v2/sites/{siteName}/newsletter/campaigns/{id}', {
      params: { path: { ...site(), id: 'client-campaign' } },
    });
    expect(bySlug.data?.id).toBe(id);
    const tested = await s.api.POST('/api/v2/sites/{siteName}/newsletter/campaigns/{id}/test-send', {
      params: { path: { ...site(), id } },
      body: { emails: ['editor@example.com'] },
    });
    expect(tested.data).toEqual({ queued: 1 });
    const scheduled = await s.api.PATCH('/api/v2/sites/{siteName}/newsletter/campaigns/{id}', {
      params: { path: { ...site(), id }, header: { 'If-Match': bySlug.response.headers.get('etag')! } },
      body: { status: 'scheduled' },
    });
    expect(scheduled.data?.status).toBe('scheduled');
    // A campaign copy stores no body: its answer renders it from the campaign and the subscriber.
    const copyId = await eventually(async () => {
      const rows: Array<{ id: string; html: string | null }> = await s.t.db.query(
        `SELECT id, html FROM email_messages WHERE site_id = $1 AND recipient = 'reader@example.com' AND 'newsletter-campaign' = ANY(tags)`,
        [s.a.siteId],
      );
      if (rows[0]) expect(rows[0].html).toBeNull();
      return rows[0] && Number(rows[0].id);
    });
    const copy = await s.api.GET('/api/v2/sites/{siteName}/email/messages/{id}', {
      params: { path: { ...site(), id: copyId } },
    });
    expect(copy.data?.bodyStatus).toBe('rendered');
    const html = copy.data!.html!;
    const open = /track\/open\/([^"]+)"/.exec(html)![1];
    const click = /track\/click\/([^"]+)"/.exec(html)![1];
    const anonymous = s.contract.as();
    const opened = await anonymous.POST('/api/v2/sites/{siteName}/newsletter/track/open/{token}', {
      params: { path: { ...site(), token: open } },
    });
    expect(opened.response.status).toBe(204);
    const pixel = await anonymous.GET('/api/v2/sites/{siteName}/newsletter/track/open/{token}', {
      params: { path: { ...site(), token: open } },
      parseAs: 'blob',
    });
    expect(pixel.response.headers.get('content-type')).toBe('image/gif');
    const clicked = await anonymous.POST('/api/v2/sites/{siteName}/newsletter/track/click/{token}', {
      params: { path: { ...site(), token: click } },
    });
    expect(clicked.data).toEqual({ url: 'https://blog.example/post' });
    const followed = await anonymous.GET('/api/v2/sites/{siteName}/newsletter/track/click/{token}', {
      params: { path: { ...site(), token: click } },
      redirect: 'manual',
    });
    expect([followed.response.status, followed.response.headers.get('location')]).toEqual([
      302,
      'https://blog.example/post',
    ]);
    const stats = await s.api.GET('/api/v2/sites/{siteName}/newsletter/statistics', {
      params: { path: site(), query: { campaignId: id } },
    });
    expect(stats.data!.campaigns[0].opens.total + stats.data!.campaigns[0].opens.machineTotal).toBe(2);
    await eventually(async () => {
      const got = await s.api.GET('/api/v2/sites/{siteName}/newsletter/campaigns/{id}', {
        params: { path: { ...site(), id: String(id) } },
      });
      return got.data?.status === 'sent' ? true : undefined;
    });
    const removed = await s.api.DELETE('/api/v2/sites/{siteName}/newsletter/campaigns/{id}', {
      params: { path: { ...site(), id } },
    });
    expect(removed.response.status).toBe(204);
  });

  it('operators: list, get, by-email, list-membership, status, bulk, sync, import and its status, delete', async () => {
    const list = (
      await s.api.POST('/api/v2/sites/{siteName}/newsletter/lists', {
        params: { path: site() },
        body: { name: 'Ops', doubleOptIn: false },
      })
    ).data!;
    const synced = await s.api.POST('/api/v2/sites/{siteName}/newsletter/subscriptions/sync', {
      params: { path: site() },
      body: { listId: list.id, emails: ['o1@example.com', 'o2@example.com'], consent: true },
    });
    expect(synced.data).toEqual({ added: 2, unsubscribed: 0, unchanged: 0, skipped: 0 });
    const page = await s.api.GET('/api/v2/sites/{siteName}/newsletter/subscriptions', {
      params: { path: site(), query: { listId: list.id, status: 'active', limit: 1 } },
    });
    expect(page.data?.pagination.nextCursor).toEqual(expect.any(String));
    const byEmail = await s.api.GET('/api/v2/sites/{siteName}/newsletter/subscriptions/by-email', {
      params: { path: site(), query: { email: 'o1@example.com' } },
    });
    const id = byEmail.data!.id;
    const got = await s.api.GET('/api/v2/sites/{siteName}/newsletter/subscriptions/{id}', {
      params: { path: { ...site(), id } },
    });
    expect(got.data?.lists.map((m) => m.status)).toEqual(['active']);
    const other = (
      await s.api.POST('/api/v2/sites/{siteName}/newsletter/lists', {
        params: { path: site() },
        body: { name: 'Other' },
      })
    ).data!;
    const joined = await s.api.POST('/api/v2/sites/{siteName}/newsletter/subscriptions/{id}/list-membership', {
      params: { path: { ...site(), id } },
      body: { add: [other.id], consent: true },
    });
    expect(joined.data?.lists.map((m) => [m.listId, m.status])).toEqual([
      [list.id, 'active'],
      [other.id, 'active'],
    ]);
    const status = await s.api.POST('/api/v2/sites/{siteName}/newsletter/subscriptions/{id}/status', {
      params: { path: { ...site(), id } },
      body: { status: 'unsubscribed', listIds: [other.id], reason: 'Asked' },
    });
    expect(status.data?.lists.find((m) => m.listId === other.id)?.status).toBe('unsubscribed');
    const bulk = await s.api.POST('/api/v2/sites/{siteName}/newsletter/subscriptions/bulk', {
      params: { path: site() },
      body: { action: 'set_deliverability', filter: { emailContains: 'o2@' }, deliverability: 'bounced' },
    });
    expect(bulk.data).toEqual({ matched: 1, changed: 1, skipped: 0, batches: 1 });
    const imported = await s.api.POST('/api/v2/sites/{siteName}/newsletter/subscriptions/import', {
      params: { path: site() },
      body: {
        file: new File(['email,name\nimp@example.com,Imp\n'], 'people.csv', { type: 'text/csv' }),
        listIds: String(list.id),
        consent: 'true',
      },
      bodySerializer: formData,
    });
    expect(imported.data).toEqual(expect.objectContaining({ status: 'completed', created: 1, invalid: [] }));
    const status2 = await s.api.GET('/api/v2/sites/{siteName}/newsletter/imports/{id}', {
      params: { path: { ...site(), id: imported.data!.id } },
    });
    expect(status2.data?.created).toBe(1);
    const removed = await s.api.DELETE('/api/v2/sites/{siteName}/newsletter/subscriptions/{id}', {
      params: { path: { ...site(), id } },
    });
    expect(removed.response.status).toBe(204);
    expect(s.contract.uncalled(['Newsletter'])).toEqual([]);
  });
});
