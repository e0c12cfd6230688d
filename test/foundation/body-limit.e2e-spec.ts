import { request as httpRequest } from 'node:http';
import { SiteEntity } from '../../src/common/tenancy/entities/site.entity';
import { expectProblem } from '../support/problem';
import { withTenants } from '../support/tenant';

/**
 * Issue 42, row 8: BODY_LIMIT is read once, strictly, into bytes (src/config/setting-kinds.ts,
 * `size`), and the body reader is handed that number: the limit is the one set, to the byte,
 * whether the body says its length or comes in chunks. (`BODY_LIMIT=huge` no longer starts:
 * test/foundation/startup-errors.e2e-spec.ts.)
 */
describe('BODY_LIMIT', () => {
  const ctx = withTenants(1, { env: { BODY_LIMIT: '2kb', JOBS_ENABLED: 'false' } });
  const sites = () => ctx.t.db.getRepository(SiteEntity).countBy({ accountId: ctx.tenants[0].accountId });

  /** A JSON object of exactly `bytes` bytes, with a field POST /sites does not take. */
  const bodyOf = (bytes: number) => {
    const body = JSON.stringify({ pad: '' });
    return JSON.stringify({ pad: 'x'.repeat(bytes - body.length) });
  };

  it('is read as bytes: 2kb is 2048', () => {
    expect(ctx.t.configs.http.BODY_LIMIT).toBe(2048);
  });

  it('a body of the limit is read (and validated); one byte more is a 413, and nothing changes', async () => {
    const before = await sites();
    const post = (body: string) =>
      ctx.tenants[0].api.post('/api/v2/sites').set('content-type', 'application/json').send(body);
    const atLimit = await post(bodyOf(2048));
    expectProblem(atLimit, 400, 'validation_failed');
    expect(atLimit.body.errors).toContainEqual({ path: 'pad', message: 'is not allowed' });
    expectProblem(await post(bodyOf(2049)), 413, 'payload_too_large');
    expect(await sites()).toBe(before);
  });

  it('a chunked body past the limit, without a length, is a 413 too', async () => {
    const port = await listen();
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/api/v2/sites',
          headers: { 'content-type': 'application/json', 'x-api-key': ctx.tenants[0].key },
        },
        (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      const body = bodyOf(4096);
      for (let i = 0; i < body.length; i += 512) req.write(body.slice(i, i + 512));
      req.end();
    });
    expect([answer.status, JSON.parse(answer.body).code]).toEqual([413, 'payload_too_large']);
  });

  async function listen(): Promise<number> {
    const server = ctx.t.server;
    if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return (server.address() as { port: number }).port;
  }
});
