import { ContactEntity } from '../../src/contacts/entities/contact.entity';
import { withClient } from '../support/api-client';

/** Every Contacts operation through the generated client (docs/openapi.md). */
describe('generated client: contacts', () => {
  const s = withClient(2);
  const site = () => ({ siteName: s.a.siteName });

  it('a form posts without a key; an operator lists, gets and updates', async () => {
    const form = s.contract.as();
    const sent = await form.POST('/api/v2/sites/{siteName}/contacts', {
      params: { path: site() },
      body: {
        name: 'Grace Hopper',
        email: 'grace@example.com',
        message: 'Do you ship to Canada?',
        tags: ['sales'],
        metadata: { page: '/contact' },
        website: '',
      },
    });
    expect([sent.response.status, sent.data]).toEqual([201, { received: true, receivedAt: expect.any(String) }]);
    const honeypot = await form.POST('/api/v2/sites/{siteName}/contacts', {
      params: { path: site() },
      body: { name: 'Bot', email: 'bot@example.com', message: 'Buy now', website: 'https://spam.example' },
    });
    expect([honeypot.response.status, honeypot.data]).toEqual([
      201,
      { received: true, receivedAt: expect.any(String) },
    ]);
    expect(await s.t.db.getRepository(ContactEntity).countBy({ siteId: s.a.siteId })).toBe(1);

    const list = await s.api.GET('/api/v2/sites/{siteName}/contacts', {
      params: {
        path: site(),
        query: { status: 'new', email: 'Grace@Example.com', tag: 'sales', q: 'canada', limit: 5 },
      },
    });
    expect(list.data!.data.map((c) => [c.name, c.status])).toEqual([['Grace Hopper', 'new']]);
    const id = list.data!.data[0].id;
    const got = await s.api.GET('/api/v2/sites/{siteName}/contacts/{id}', { params: { path: { ...site(), id } } });
    expect([got.response.status, got.data?.metadata]).toEqual([200, { page: '/contact' }]);
    const updated = await s.api.PATCH('/api/v2/sites/{siteName}/contacts/{id}', {
      params: { path: { ...site(), id } },
      body: { status: 'closed', tags: ['sales', 'answered'], phone: null },
    });
    expect([updated.response.status, updated.data?.status, updated.data?.tags]).toEqual([
      200,
      'closed',
      ['sales', 'answered'],
    ]);

    // With the site's key, a create answers the contact and its Location, like every create.
    const imported = await s.api.POST('/api/v2/sites/{siteName}/contacts', {
      params: { path: site() },
      body: { name: 'Ada', email: 'ada@example.com', message: 'Imported', source: 'import' },
    });
    expect(imported.response.status).toBe(201);
    const contact = imported.data as { id: number; source: string };
    expect(contact.source).toBe('import');
    expect(imported.response.headers.get('location')).toMatch(new RegExp(`/contacts/${contact.id}$`));

    const anonymous = await form.GET('/api/v2/sites/{siteName}/contacts', { params: { path: site() } });
    expect([anonymous.response.status, anonymous.error?.code]).toEqual([401, 'missing_credential']);
    const theirs = await s.contract.as(s.b.key).GET('/api/v2/sites/{siteName}/contacts/{id}', {
      params: { path: { siteName: s.b.siteName, id } },
    });
    expect([theirs.response.status, theirs.error?.code]).toEqual([404, 'not_found']);
  });

  it('called every Contacts operation through the client', () => {
    expect(s.contract.uncalled(['Contacts'])).toEqual([]);
  });
});
