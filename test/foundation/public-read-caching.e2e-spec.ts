import request from 'supertest';
import { contentUrl, makeContent } from '../support/factories';
import { makeProduct } from '../support/commerce';
import { withTenants } from '../support/tenant';

/**
 * docs/performance.md, "Public reads": anonymous reads of a site's published data carry a body
 * ETag and `Cache-Control: public`, and a matching `If-None-Match` gets a `304` with no body;
 * reads with a key are private (private-answers.e2e-spec.ts), problems are `no-store`.
 */
describe('ETag, Cache-Control and 304 on public reads', () => {
  const ctx = withTenants(1, { env: { RATE_LIMIT_PUBLIC_MAX: '100000' } });
  const anon = () => request(ctx.t.server);

  it('an anonymous list and item answer 304 to their own ETag, and 200 with a new one once they change', async () => {
    const [a] = ctx.tenants;
    const item = await makeContent(a, { title: 'Cached', status: 'published' });
    const list = await anon().get(contentUrl(a)).expect(200);
    expect(list.headers.etag).toMatch(/^W\/"[0-9a-f]+-[0-9a-f]+"$/);
    expect(list.headers['cache-control']).toBe('public, no-cache');
    expect(list.headers.vary).toMatch(/Authorization/i);
    expect(list.headers.vary).toMatch(/X-Api-Key/i);
    expect(list.headers['content-type']).toMatch(/^application\/json/);

    const again = await anon().get(contentUrl(a)).set('If-None-Match', list.headers.etag).expect(304);
    expect(again.text).toBe('');
    expect(again.headers.etag).toBe(list.headers.etag);

    const one = await anon()
      .get(contentUrl(a, `/${item.slug}`))
      .expect(200);
    expect(one.body.title).toBe('Cached');
    await anon()
      .get(contentUrl(a, `/${item.slug}`))
      .set('If-None-Match', one.headers.etag)
      .expect(304);

    await a.api
      .patch(contentUrl(a, `/${item.id}`))
      .send({ title: 'Changed' })
      .expect(200);
    const changed = await anon()
      .get(contentUrl(a, `/${item.slug}`))
      .set('If-None-Match', one.headers.etag)
      .expect(200);
    expect(changed.body.title).toBe('Changed');
    expect(changed.headers.etag).not.toBe(one.headers.etag);
    const relisted = await anon().get(contentUrl(a)).set('If-None-Match', list.headers.etag).expect(200);
    expect(relisted.headers.etag).not.toBe(list.headers.etag);
  });

  it('the catalog too; a read with a key is private to its caller and never answered 304 from a public tag', async () => {
    const [a] = ctx.tenants;
    await makeProduct(a, { name: 'Cached product' });
    const url = `/api/v2/sites/${a.siteName}/products`;
    const pub = await anon().get(url).expect(200);
    expect(pub.headers.etag).toBeDefined();
    await anon().get(url).set('If-None-Match', pub.headers.etag).expect(304);
    const keyed = await a.api.get(url).set('If-None-Match', pub.headers.etag).expect(200);
    expect(keyed.headers.etag).toBeUndefined();
    // Private to its caller (docs/security.md, "Caching of credentialed answers").
    expect(keyed.headers['cache-control']).toBe('private, no-store');
  });

  it('errors, health probes and writes carry no public cache headers', async () => {
    const [a] = ctx.tenants;
    const missing = await anon().get(contentUrl(a, '/no-such-item')).expect(404);
    expect(missing.headers.etag).toBeUndefined();
    // A problem is never kept: no CDN serves a 404 or a 429 to the next caller.
    expect(missing.headers['cache-control']).toBe('no-store');
    const health = await anon().get('/health').expect(200);
    expect(health.headers.etag).toBeUndefined();
    const created = await a.api.post(contentUrl(a)).send({ title: 'Write' }).expect(201);
    expect(created.headers['cache-control']).toBe('private, no-store');
  });
});
