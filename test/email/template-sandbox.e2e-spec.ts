import { randomBytes } from 'node:crypto';
import { unlinkSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { EmailTemplateEntity } from '../../src/email/entities/email-template.entity';
import { snapshotDatabase } from '../support/db-snapshot';
import { expectProblem } from '../support/problem';
import { Tenant, withTenants } from '../support/tenant';

/**
 * Templates are a sandbox (docs/email.md, "The template sandbox"): no template of any type, from
 * any route, reads a file. A file with a secret marker sits in the server's working directory,
 * where liquidjs's default file system would find it; every way of naming it is a 400 that
 * holds none of it, and the database is left as it was.
 */
describe('email templates: the sandbox', () => {
  const ctx = withTenants(1);
  let a: Tenant;
  const MARKER = `SECRET-${randomBytes(8).toString('hex')}`;
  const FILE = `sandbox-${randomBytes(4).toString('hex')}.env`;
  const url = (rest = '') => `/api/v2/sites/${a.siteName}/email/templates${rest}`;

  /** Every way a template can name the file (or any file): tags, dynamic names, paths. */
  const naming = (): Array<[string, string]> => [
    [`{% include '${FILE}' %}`, 'include'],
    [`{% include "${FILE}" %}`, 'include'],
    [`{% assign f = '${FILE.slice(0, 5)}' | append: '${FILE.slice(5)}' %}{% include f %}`, 'include'],
    [`{% render '${FILE}' %}`, 'render'],
    [`{%- render '${FILE}' -%}`, 'render'],
    [`{% layout '${FILE}' %}`, 'layout'],
    [`{% liquid\n  assign x = 1\n  include '${FILE}'\n%}`, 'include'],
    [`{% liquid render '${FILE}' %}`, 'render'],
    [`{% include '${FILE}' with site %}`, 'include'],
    [`{% include '${FILE}' for site %}`, 'include'],
    [`{% render '${FILE}' with site as s %}`, 'render'],
    [`{% include './${FILE}' %}`, 'include'],
    [`{% include '../${basename(process.cwd())}/${FILE}' %}`, 'include'],
    [`{% include '${join(process.cwd(), FILE)}' %}`, 'include'],
    [`{% if site %}{% for i in (1..2) %}{% include '${FILE}' %}{% endfor %}{% endif %}`, 'include'],
    ["{% include '.env' %}", 'include'],
    ["{% include '.git/config' %}", 'include'],
    [`{% include 'missing-${FILE}' %}`, 'include'],
  ];

  beforeAll(() => {
    [a] = ctx.tenants;
    writeFileSync(join(process.cwd(), FILE), `${MARKER}\n`);
  });
  afterAll(() => unlinkSync(join(process.cwd(), FILE)));

  function expectRefused(res: { status: number; body: unknown }, tag: string) {
    expectProblem(res as never, 400, 'validation_failed');
    expect(JSON.stringify(res.body)).not.toContain(MARKER);
    expect((res.body as { errors: Array<{ message: string }> }).errors[0].message).toContain(`\`${tag}\` tag`);
  }

  it('refuses every way of naming a file, in every part of every template type, at create; stores nothing', async () => {
    const types = (await a.api.get(url('/types')).expect(200)).body.data as Array<{
      type: string;
      fixed: boolean;
      defaultTemplate: { subject: string; html: string };
    }>;
    // A fixed type (the re-consent mail) takes no site template at all: templates.e2e-spec refuses it.
    const replaceable = types.filter((t) => !t.fixed);
    expect(replaceable.length).toBeGreaterThan(5);
    const before = await snapshotDatabase(ctx.t.db);
    let cases = 0;
    for (const [source, tag] of naming()) {
      const res = await a.api.post(url()).send({ type: 'custom', name: 'x', subject: 'S', html: source });
      expectRefused(res, tag);
      expect(res.body.errors).toEqual([
        { path: 'html', message: expect.stringMatching(/^line \d+, col \d+: uses the/) },
      ]);
      cases += 1;
    }
    const [source, tag] = naming()[2];
    for (const t of replaceable)
      for (const part of ['subject', 'html', 'text'] as const) {
        const body = { type: t.type, name: 'x', ...t.defaultTemplate, [part]: source };
        expectRefused(await a.api.post(url()).send(body), tag);
        cases += 1;
      }
    expect(await snapshotDatabase(ctx.t.db)).toEqual(before);
    console.log(`template sandbox: ${cases} creates refused`);
  }, 120_000);

  it('refuses them at update too, and the draft stays as it was', async () => {
    const made = (
      await a.api
        .post(url())
        .send({ type: 'custom', name: 'ok', subject: 'S', html: '<p>{{ subject }}</p>' })
        .expect(201)
    ).body;
    const before = await snapshotDatabase(ctx.t.db);
    for (const [source, tag] of naming()) {
      expectRefused(await a.api.patch(url(`/${made.id}`)).send({ html: source }), tag);
      expectRefused(await a.api.patch(url(`/${made.id}`)).send({ text: source }), tag);
    }
    expect(await snapshotDatabase(ctx.t.db)).toEqual(before);
  }, 120_000);

  it('a template stored before the sandbox cannot be previewed, sent, published or cloned: 400, no file', async () => {
    const repo = ctx.t.db.getRepository(EmailTemplateEntity);
    const legacy = await repo.save(
      naming().map(([source]) =>
        repo.create({
          siteId: a.siteId,
          type: 'custom',
          name: 'legacy',
          subject: 'S',
          html: `<p>${source}</p>`,
          text: null,
        }),
      ),
    );
    const before = await snapshotDatabase(ctx.t.db);
    for (const [i, [, tag]] of naming().entries()) {
      const id = legacy[i].id;
      expectRefused(await a.api.post(url(`/${id}/preview`)).send({ data: { subject: 'S', body: 'B' } }), tag);
      expectRefused(await a.api.post(url(`/${id}/publish`)), tag);
      expectRefused(await a.api.post(url(`/${id}/clone`)), tag);
      expectRefused(
        await a.api
          .post(`/api/v2/sites/${a.siteName}/email/send`)
          .send({ to: [{ email: 'x@example.com' }], templateId: id, data: { subject: 'S', body: 'B' } }),
        tag,
      );
    }
    expect(await snapshotDatabase(ctx.t.db)).toEqual(before);
  }, 120_000);

  it('a runaway template is refused at save and at preview with template_limit_exceeded, quickly', async () => {
    const loop = '{% for i in (1..100000) %}{% for j in (1..100000) %}{{ subject }}{% endfor %}{% endfor %}';
    const before = await snapshotDatabase(ctx.t.db);
    const t0 = Date.now();
    const created = await a.api.post(url()).send({ type: 'custom', name: 'loop', subject: 'S', html: loop });
    expectProblem(created, 400, 'template_limit_exceeded');
    expect(created.body.errors).toEqual([
      { path: 'html', message: expect.stringContaining('template render limit exceeded') },
    ]);
    const huge = await a.api.post(url()).send({
      type: 'custom',
      name: 'huge',
      subject: 'S',
      html: "{% assign s = 'ab' %}{% for i in (1..40) %}{% assign s = s | append: s %}{% endfor %}{{ s }}",
    });
    expectProblem(huge, 400, 'template_limit_exceeded');
    expect(await snapshotDatabase(ctx.t.db)).toEqual(before);
    const repo = ctx.t.db.getRepository(EmailTemplateEntity);
    const legacy = await repo.save(
      repo.create({ siteId: a.siteId, type: 'custom', name: 'legacy loop', subject: 'S', html: loop, text: null }),
    );
    expectProblem(
      await a.api.post(url(`/${legacy.id}/preview`)).send({ data: { subject: 'S', body: 'B' } }),
      400,
      'template_limit_exceeded',
    );
    const took = Date.now() - t0;
    console.log(`runaway templates refused in ${took} ms (three renders stopped at their budget)`);
    expect(took).toBeLessThan(10_000);
  });
});
