import { EmailMessageEntity } from '../../src/email/entities/email-message.entity';
import { EmailTemplateEntity } from '../../src/email/entities/email-template.entity';
import { withClient } from '../support/api-client';

/** Every Email operation through the generated client (docs/openapi.md). No SMTP: mail stays queued. */
describe('generated client: email', () => {
  const s = withClient(2);
  const site = () => ({ siteName: s.a.siteName });
  const templates = () => s.t.db.getRepository(EmailTemplateEntity);

  it('template types: list and get', async () => {
    const list = await s.api.GET('/api/v2/sites/{siteName}/email/templates/types', { params: { path: site() } });
    expect(list.response.status).toBe(200);
    expect(list.data!.data.map((t) => t.type)).toContain('orders.confirmation');
    const one = await s.api.GET('/api/v2/sites/{siteName}/email/templates/types/{templateType}', {
      params: { path: { ...site(), templateType: 'contacts.received' } },
    });
    expect([one.response.status, one.data?.module]).toEqual([200, 'contacts']);
    const unknown = await s.api.GET('/api/v2/sites/{siteName}/email/templates/types/{templateType}', {
      params: { path: { ...site(), templateType: 'contacts.nothing' } },
    });
    expect([unknown.response.status, unknown.error?.code]).toEqual([404, 'template_type_not_found']);
  });

  it('templates: create, get, update, preview, clone, publish, published, list, delete', async () => {
    const created = await s.api.POST('/api/v2/sites/{siteName}/email/templates', {
      params: { path: site() },
      body: {
        type: 'contacts.received',
        name: 'Team alert',
        subject: 'Message from {{ name }}',
        html: '<p>{{ message }}</p>',
      },
    });
    expect(created.response.status).toBe(201);
    const id = created.data!.id;
    expect(await templates().findOneByOrFail({ id })).toEqual(
      expect.objectContaining({ siteId: s.a.siteId, status: 'draft', name: 'Team alert' }),
    );
    const got = await s.api.GET('/api/v2/sites/{siteName}/email/templates/{templateId}', {
      params: { path: { ...site(), templateId: id } },
    });
    expect([got.response.status, got.data?.subject]).toEqual([200, 'Message from {{ name }}']);
    const updated = await s.api.PATCH('/api/v2/sites/{siteName}/email/templates/{templateId}', {
      params: { path: { ...site(), templateId: id }, header: { 'If-Match': got.response.headers.get('etag')! } },
      body: { text: '{{ name }} wrote: {{ message }}' },
    });
    expect([updated.response.status, updated.data?.version]).toEqual([200, 2]);
    const preview = await s.api.POST('/api/v2/sites/{siteName}/email/templates/{templateId}/preview', {
      params: { path: { ...site(), templateId: id } },
      body: {},
    });
    expect(preview.data).toEqual({
      subject: 'Message from Grace Hopper',
      html: '<p>Hello! Do you ship to Canada?</p>',
      text: 'Grace Hopper wrote: Hello! Do you ship to Canada?',
    });
    const clone = await s.api.POST('/api/v2/sites/{siteName}/email/templates/{templateId}/clone', {
      params: { path: { ...site(), templateId: id } },
    });
    expect([clone.response.status, clone.data?.name]).toEqual([201, 'Team alert (copy)']);
    const published = await s.api.POST('/api/v2/sites/{siteName}/email/templates/{templateId}/publish', {
      params: { path: { ...site(), templateId: id } },
    });
    expect([published.response.status, published.data?.status]).toEqual([200, 'published']);
    const current = await s.api.GET('/api/v2/sites/{siteName}/email/templates/published/{templateType}', {
      params: { path: { ...site(), templateType: 'contacts.received' } },
    });
    expect([current.data?.builtIn, current.data?.id]).toEqual([false, id]);
    const list = await s.api.GET('/api/v2/sites/{siteName}/email/templates', {
      params: { path: site(), query: { status: 'draft' } },
    });
    expect(list.data!.data.map((t) => t.id)).toEqual([clone.data!.id]);
    const removed = await s.api.DELETE('/api/v2/sites/{siteName}/email/templates/{templateId}', {
      params: { path: { ...site(), templateId: clone.data!.id } },
    });
    expect(removed.response.status).toBe(204);
    expect(await templates().findOneBy({ id: clone.data!.id })).toBeNull();
    const theirs = await s.contract.as(s.b.key).GET('/api/v2/sites/{siteName}/email/templates/{templateId}', {
      params: { path: { siteName: s.b.siteName, templateId: id } },
    });
    expect([theirs.response.status, theirs.error?.code]).toEqual([404, 'not_found']);
  });

  it('send, then list and get messages', async () => {
    const sent = await s.api.POST('/api/v2/sites/{siteName}/email/send', {
      params: { path: site(), header: { 'Idempotency-Key': 'client-send-1' } },
      body: {
        to: [{ email: 'team@example.com', name: 'Team' }],
        templateType: 'contacts.received',
        data: { name: 'Ada', email: 'ada@example.com', message: 'Hi', submittedAt: '2026-11-24T10:00:00Z' },
      },
    });
    expect(sent.response.status).toBe(202);
    const [message] = sent.data!.messages;
    expect(message).toEqual({ id: expect.any(Number), to: 'team@example.com', kind: 'to', status: 'queued' });
    expect(await s.t.db.getRepository(EmailMessageEntity).findOneByOrFail({ id: message.id })).toEqual(
      expect.objectContaining({ subject: 'Message from Ada', templateType: 'contacts.received' }),
    );
    const list = await s.api.GET('/api/v2/sites/{siteName}/email/messages', {
      params: { path: site(), query: { status: 'queued' } },
    });
    expect(list.data!.data.map((m) => m.id)).toEqual([message.id]);
    const one = await s.api.GET('/api/v2/sites/{siteName}/email/messages/{id}', {
      params: { path: { ...site(), id: message.id } },
    });
    expect([one.response.status, one.data?.toHeader, one.data?.text]).toEqual([
      200,
      '"Team" <team@example.com>',
      'Ada wrote: Hi',
    ]);
    const bad = await s.api.POST('/api/v2/sites/{siteName}/email/send', {
      params: { path: site() },
      body: { to: [{ email: 'team@example.com' }], templateType: 'contacts.received', data: { name: 'Ada' } },
    });
    expect([bad.response.status, bad.error?.code]).toEqual([400, 'validation_failed']);
  });

  it('suppressions: create, list, get, lift (admin)', async () => {
    const created = await s.api.POST('/api/v2/sites/{siteName}/email/suppressions', {
      params: { path: site() },
      body: { email: 'Quiet@Example.com', note: 'Asked by phone' },
    });
    expect([created.response.status, created.data?.email, created.data?.reason]).toEqual([
      201,
      'quiet@example.com',
      'manual',
    ]);
    const id = created.data!.id;
    const list = await s.api.GET('/api/v2/sites/{siteName}/email/suppressions', {
      params: { path: site(), query: { reason: 'manual', email: 'quiet@example.com' } },
    });
    expect(list.data!.data.map((x) => x.id)).toEqual([id]);
    const one = await s.api.GET('/api/v2/sites/{siteName}/email/suppressions/{id}', {
      params: { path: { ...site(), id } },
    });
    expect([one.response.status, one.data?.note]).toEqual([200, 'Asked by phone']);
    const again = await s.api.POST('/api/v2/sites/{siteName}/email/suppressions', {
      params: { path: site() },
      body: { email: 'quiet@example.com' },
    });
    expect([again.response.status, again.error?.code]).toEqual([409, 'already_suppressed']);
    const lifted = await s.api.DELETE('/api/v2/sites/{siteName}/email/suppressions/{id}', {
      params: { path: { ...site(), id }, query: { reason: 'Entered by mistake' } },
    });
    expect(lifted.response.status).toBe(204);
    const rows = await s.t.db.query('SELECT id FROM email_suppressions WHERE site_id = $1', [s.a.siteId]);
    expect(rows).toEqual([]);
  });

  it('called every Email operation through the client', () => {
    expect(s.contract.uncalled(['Email'])).toEqual([]);
  });
});
