import { EmailTemplateEntity } from '../../src/email/entities/email-template.entity';
import { ISO } from '../support/matchers';
import { expectProblem } from '../support/problem';
import { Tenant, withTenants } from '../support/tenant';

describe('email templates and template types', () => {
  const ctx = withTenants(2);
  let a: Tenant;
  let b: Tenant;
  const url = (x: Tenant, rest = '') => `/api/v2/sites/${x.siteName}/email/templates${rest}`;
  const rows = () => ctx.t.db.getRepository(EmailTemplateEntity);
  const otp = {
    type: 'users.otp',
    name: 'Code',
    subject: 'Code: {{ code }}',
    html: '<p>{{ code }} ({{ expiresInMinutes }} min)</p>',
  };

  beforeAll(() => ([a, b] = ctx.tenants));

  describe('types', () => {
    it('lists every type with its variables, sample and default template', async () => {
      const res = await a.api.get(url(a, '/types')).expect(200);
      const names = res.body.data.map((t: { type: string }) => t.type);
      expect(names).toEqual(
        expect.arrayContaining([
          'newsletter.confirmation',
          'newsletter.campaign',
          'users.otp',
          'orders.confirmation',
          'orders.shipped',
          'contacts.received',
          'custom',
        ]),
      );
      expect([...names].sort()).toEqual(names);
    });

    it('gets one; an unknown type is a 404, a malformed one a 400', async () => {
      const res = await a.api.get(url(a, '/types/users.otp')).expect(200);
      expect(res.body).toEqual({
        type: 'users.otp',
        module: 'users',
        description: expect.any(String),
        variables: expect.objectContaining({ type: 'object', required: ['code', 'expiresInMinutes'] }),
        sample: { code: '482913', expiresInMinutes: 10, userName: 'Ada' },
        // No code in the subject (docs/security.md): the code is in the body only.
        defaultTemplate: { subject: 'Your sign-in code for {{ site.title }}', html: expect.any(String), text: null },
        fixed: false,
      });
      // The code is secret: stored copies show it redacted (docs/email.md, "What is stored").
      expect(res.body.variables.properties.code).toEqual(expect.objectContaining({ type: 'string', secret: true }));
      expectProblem(await a.api.get(url(a, '/types/users.nothing')), 404, 'template_type_not_found');
      expectProblem(await a.api.get(url(a, '/types/Not%20A%20Type')), 400, 'validation_failed');
    });

    it('every default template passes its own checks and renders its sample; a fixed type takes no site template', async () => {
      const types = (await a.api.get(url(a, '/types')).expect(200)).body.data as Array<{
        type: string;
        defaultTemplate: { subject: string; html: string; text: string | null };
        fixed: boolean;
      }>;
      // The newsletter's re-consent mail after a complaint (docs/deliverability.md): only it is fixed.
      expect(types.filter((t) => t.fixed).map((t) => t.type)).toEqual(['newsletter.complaint_confirmation']);
      for (const t of types) {
        if (t.fixed) {
          const refused = await a.api.post(url(a)).send({ type: t.type, name: 'Mine', ...t.defaultTemplate });
          expectProblem(refused, 400, 'validation_failed');
          continue;
        }
        const made = await a.api
          .post(url(a))
          .send({ type: t.type, name: `default of ${t.type}`, ...t.defaultTemplate })
          .expect(201);
        const preview = await a.api.post(url(a, `/${made.body.id}/preview`)).expect(200);
        expect(preview.body.subject).not.toMatch(/\{\{|\}\}/);
        expect(preview.body.html).toMatch(/style="/);
        expect(preview.body.text.length).toBeGreaterThan(10);
      }
    });
  });

  describe('the custom type (additionalProperties: true)', () => {
    it('takes the variables its schema allows beyond subject and body; other types still refuse unknown ones', async () => {
      const made = await a.api.post(url(a)).send({
        type: 'custom',
        name: 'Welcome',
        subject: '{{ subject }} for {{ customerName }}',
        html: '<p>{{ body | raw }}</p><p>Order {{ order.number }}: {% for l in order.lines %}{{ l.name }} {% endfor %}</p>',
      });
      expect(made.status).toBe(201);
      expect(await rows().findOneByOrFail({ id: made.body.id })).toEqual(
        expect.objectContaining({ siteId: a.siteId, type: 'custom', status: 'draft' }),
      );
      const preview = await a.api
        .post(url(a, `/${made.body.id}/preview`))
        .send({
          data: {
            subject: 'Hello',
            body: '<b>hi</b>',
            customerName: 'Ada',
            order: { number: 'A-1', lines: [{ name: 'Pen' }] },
          },
        })
        .expect(200);
      expect(preview.body.subject).toBe('Hello for Ada');
      expect(preview.body.html).toContain('<b>hi</b>');
      expect(preview.body.html).toContain('Order A-1: Pen');
      // Its required variables stay required.
      const missing = await a.api.post(url(a, `/${made.body.id}/preview`)).send({ data: { customerName: 'Ada' } });
      expectProblem(missing, 400, 'validation_failed');
      expect(missing.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['data.body', 'data.subject']);
      const strict = await a.api.post(url(a)).send({ ...otp, html: '<p>{{ code }} {{ customerName }}</p>' });
      expectProblem(strict, 400, 'validation_failed');
      expect(strict.body.errors).toEqual([
        { path: 'html', message: 'uses `customerName`, which this template type does not have' },
      ]);
    });
  });

  describe('create, read, edit', () => {
    it('creates a draft: 201, Location, ETag, the row', async () => {
      const res = await a.api.post(url(a)).send(otp);
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.any(Number),
        ...otp,
        text: null,
        status: 'draft',
        version: 1,
        publishedAt: null,
        createdAt: ISO,
        updatedAt: ISO,
      });
      expect(res.headers.location).toMatch(new RegExp(`${url(a)}/${res.body.id}$`));
      expect(res.headers.etag).toBe(`"${res.body.id}-1"`);
      expect(await rows().findOneByOrFail({ id: res.body.id })).toEqual(
        expect.objectContaining({ siteId: a.siteId, type: 'users.otp', status: 'draft', version: 1 }),
      );
    });

    it('refuses a syntax error with its line, an unknown variable, an unknown type; stores nothing', async () => {
      const before = await rows().count();
      const broken = await a.api.post(url(a)).send({ ...otp, html: '<p>\n{% if code %}{{ code }\n</p>' });
      expectProblem(broken, 400, 'validation_failed');
      expect(broken.body.errors).toEqual([{ path: 'html', message: expect.stringMatching(/^line 2, col \d+: /) }]);
      const unknown = await a.api.post(url(a)).send({ ...otp, subject: 'Hi {{ user.name }}' });
      expectProblem(unknown, 400, 'validation_failed');
      expect(unknown.body.errors).toEqual([
        { path: 'subject', message: 'uses `user`, which this template type does not have' },
      ]);
      const nested = await a.api.post(url(a)).send({
        type: 'orders.confirmation',
        name: 'x',
        subject: '{{ orderNumber }}',
        html: '{% for i in items %}{{ i.name }}{% endfor %}{{ items.first.sku }}',
      });
      expect(nested.body.errors).toEqual([
        { path: 'html', message: 'uses `items.first.sku`, which this template type does not have' },
      ]);
      expectProblem(await a.api.post(url(a)).send({ ...otp, type: 'users.nothing' }), 404, 'template_type_not_found');
      expectProblem(
        await a.api.post(url(a)).send({ ...otp, subject: 'Hi\r\nBcc: x@example.com' }),
        400,
        'validation_failed',
      );
      expectProblem(
        await a.api.post(url(a)).send({ ...otp, html: '{{ code | nosuchfilter }}' }),
        400,
        'validation_failed',
      );
      expect(await rows().count()).toBe(before);
    });

    it("gets one; another site's template is a 404", async () => {
      const made = (await a.api.post(url(a)).send(otp).expect(201)).body;
      const res = await a.api.get(url(a, `/${made.id}`)).expect(200);
      expect(res.body).toEqual(made);
      expectProblem(await b.api.get(url(b, `/${made.id}`)), 404, 'not_found');
      expectProblem(await a.api.get(url(a, '/999999999')), 404, 'not_found');
    });

    it('edits a draft (version up), honours If-Match, refuses a published one', async () => {
      const made = (await a.api.post(url(a)).send(otp).expect(201)).body;
      const edited = await a.api
        .patch(url(a, `/${made.id}`))
        .set('If-Match', `"${made.id}-1"`)
        .send({ name: 'Code v2', text: 'Code {{ code }}' })
        .expect(200);
      expect(edited.body).toEqual(expect.objectContaining({ name: 'Code v2', text: 'Code {{ code }}', version: 2 }));
      expectProblem(
        await a.api
          .patch(url(a, `/${made.id}`))
          .set('If-Match', `"${made.id}-1"`)
          .send({ name: 'Lost' }),
        412,
        'precondition_failed',
      );
      expectProblem(await a.api.patch(url(a, `/${made.id}`)).send({ html: '{{ nope }}' }), 400, 'validation_failed');
      await a.api.post(url(a, `/${made.id}/publish`)).expect(200);
      expectProblem(await a.api.patch(url(a, `/${made.id}`)).send({ name: 'x' }), 409, 'template_published');
      expectProblem(await a.api.delete(url(a, `/${made.id}`)), 409, 'template_published');
      expect(await rows().findOneByOrFail({ id: made.id })).toEqual(
        expect.objectContaining({ name: 'Code v2', status: 'published', version: 3 }),
      );
    });

    it('deletes a draft', async () => {
      const made = (await a.api.post(url(a)).send(otp).expect(201)).body;
      expectProblem(await b.api.delete(url(b, `/${made.id}`)), 404, 'not_found');
      await a.api.delete(url(a, `/${made.id}`)).expect(204);
      expect(await rows().findOneBy({ id: made.id })).toBeNull();
    });
  });

  describe('publish, published, clone, list', () => {
    it('publishing one makes it the published template of its type; the previous goes back to draft', async () => {
      const first = (
        await b.api
          .post(url(b))
          .send({ ...otp, name: 'First' })
          .expect(201)
      ).body;
      const second = (
        await b.api
          .post(url(b))
          .send({ ...otp, name: 'Second' })
          .expect(201)
      ).body;
      const builtIn = await b.api.get(url(b, '/published/users.otp')).expect(200);
      expect(builtIn.body).toEqual(
        expect.objectContaining({ type: 'users.otp', builtIn: true, id: null, publishedAt: null }),
      );

      const p1 = await b.api.post(url(b, `/${first.id}/publish`)).expect(200);
      expect(p1.body).toEqual(expect.objectContaining({ status: 'published', publishedAt: ISO, version: 2 }));
      expectProblem(await b.api.post(url(b, `/${first.id}/publish`)), 409, 'transition_forbidden');
      await b.api.post(url(b, `/${second.id}/publish`)).expect(200);
      const states = await rows().find({ where: { siteId: b.siteId, type: 'users.otp' }, order: { id: 'ASC' } });
      expect(states.map((r) => [r.name, r.status])).toEqual([
        ['First', 'draft'],
        ['Second', 'published'],
      ]);
      const published = await b.api.get(url(b, '/published/users.otp')).expect(200);
      expect(published.body).toEqual({
        type: 'users.otp',
        builtIn: false,
        id: second.id,
        name: 'Second',
        subject: otp.subject,
        html: otp.html,
        text: null,
        publishedAt: ISO,
      });
      // Site a's published template of the type is its own business.
      expect((await a.api.get(url(a, '/published/orders.shipped')).expect(200)).body.builtIn).toBe(true);
      expectProblem(await b.api.get(url(b, '/published/users.nothing')), 404, 'template_type_not_found');
    });

    it('publishing two templates of a type at once leaves exactly one published', async () => {
      const made = await Promise.all(
        [1, 2, 3, 4].map(
          async (i) =>
            (
              await b.api
                .post(url(b))
                .send({
                  ...otp,
                  type: 'orders.shipped',
                  subject: '{{ orderNumber }}',
                  html: '{{ carrier }}',
                  name: `Race ${i}`,
                })
                .expect(201)
            ).body.id as number,
        ),
      );
      const answers = await Promise.all(made.map((id) => b.api.post(url(b, `/${id}/publish`))));
      expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200]);
      expect(await rows().countBy({ siteId: b.siteId, type: 'orders.shipped', status: 'published' })).toBe(1);
    });

    it('clones into a new draft', async () => {
      const source = (
        await a.api
          .post(url(a))
          .send({ ...otp, name: 'Original' })
          .expect(201)
      ).body;
      await a.api.post(url(a, `/${source.id}/publish`)).expect(200);
      const res = await a.api.post(url(a, `/${source.id}/clone`));
      expect(res.status).toBe(201);
      expect(res.body).toEqual(
        expect.objectContaining({
          name: 'Original (copy)',
          status: 'draft',
          version: 1,
          subject: otp.subject,
          html: otp.html,
        }),
      );
      expect(res.body.id).not.toBe(source.id);
      expect(res.headers.location).toMatch(new RegExp(`/email/templates/${res.body.id}$`));
      expectProblem(await b.api.post(url(b, `/${source.id}/clone`)), 404, 'not_found');
    });

    it('lists newest first with type and status filters, keyset-paginated', async () => {
      const all = await b.api.get(url(b, '?limit=100')).expect(200);
      const ids = all.body.data.map((t: { id: number }) => t.id);
      expect(ids).toEqual([...ids].sort((x, y) => y - x));
      const published = await b.api.get(url(b, '?status=published&limit=100')).expect(200);
      expect(published.body.data.map((t: { type: string }) => t.type).sort()).toEqual(['orders.shipped', 'users.otp']);
      const shipped = await b.api.get(url(b, '?type=orders.shipped&limit=2')).expect(200);
      expect(shipped.body.data).toHaveLength(2);
      const next = await b.api
        .get(url(b, `?type=orders.shipped&limit=2&cursor=${shipped.body.pagination.nextCursor}`))
        .expect(200);
      expect(next.body.data.map((t: { id: number }) => t.id).every((id: number) => id < shipped.body.data[1].id)).toBe(
        true,
      );
      expectProblem(await b.api.get(url(b, '?status=live')), 400, 'validation_failed');
    });

    it('previews with sample data or given data; a missing variable is a 400 naming it', async () => {
      const made = (await a.api.post(url(a)).send(otp).expect(201)).body;
      const sample = await a.api.post(url(a, `/${made.id}/preview`)).expect(200);
      expect(sample.body).toEqual({ subject: 'Code: 482913', html: '<p>482913 (10 min)</p>', text: '482913 (10 min)' });
      const given = await a.api
        .post(url(a, `/${made.id}/preview`))
        .send({ data: { code: '<b>', expiresInMinutes: 5 } })
        .expect(200);
      expect(given.body.html).toBe('<p>&lt;b&gt; (5 min)</p>');
      const missing = await a.api.post(url(a, `/${made.id}/preview`)).send({ data: { code: '1' } });
      expectProblem(missing, 400, 'validation_failed');
      expect(missing.body.errors).toEqual([
        { path: 'data.expiresInMinutes', message: 'is required by the template type' },
      ]);
    });
  });
});
