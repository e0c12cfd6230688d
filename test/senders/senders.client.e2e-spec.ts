import { SenderDomainEntity } from '../../src/senders/entities/sender-domain.entity';
import { withClient } from '../support/api-client';
import { fakeDns } from '../support/dns';
import { ISO } from '../support/matchers';
import { uniqueName } from '../support/tenant';

/** Sender domains, called through the generated client: every answer is checked against the document. */
describe('generated client: sender domains', () => {
  const dns = fakeDns();
  const s = withClient(1, { extraModules: [dns.module] });

  it('add, list, get, verify (422, then 200), delete', async () => {
    const domain = `${uniqueName('client')}.example.com`;
    const created = await s.api.POST('/api/v2/sender-domains', { body: { domain } });
    expect(created.response.status).toBe(201);
    const body = created.data!;
    expect(body).toEqual(expect.objectContaining({ domain, status: 'pending', verifiedAt: null, createdAt: ISO }));
    expect(await s.t.db.getRepository(SenderDomainEntity).findOneBy({ id: body.id })).toEqual(
      expect.objectContaining({ accountId: s.a.accountId, domain, status: 'pending' }),
    );

    const list = await s.api.GET('/api/v2/sender-domains', { params: { query: { limit: 100 } } });
    expect([list.response.status, list.data!.data.map((d) => d.id)]).toEqual([200, [body.id]]);
    const one = await s.api.GET('/api/v2/sender-domains/{id}', { params: { path: { id: body.id } } });
    expect([one.response.status, one.data]).toEqual([200, body]);

    const early = await s.api.POST('/api/v2/sender-domains/{id}/verify', { params: { path: { id: body.id } } });
    expect([early.response.status, early.error?.code]).toEqual([422, 'dns_records_missing']);
    dns.publish(body.records.verification.name, body.records.verification.value);
    dns.publish(body.records.dkim.name, body.records.dkim.value);
    const verified = await s.api.POST('/api/v2/sender-domains/{id}/verify', { params: { path: { id: body.id } } });
    expect([verified.response.status, verified.data?.status]).toEqual([200, 'verified']);

    const removed = await s.api.DELETE('/api/v2/sender-domains/{id}', { params: { path: { id: body.id } } });
    expect(removed.response.status).toBe(204);
    expect(await s.t.db.getRepository(SenderDomainEntity).countBy({ id: body.id })).toBe(0);
    const gone = await s.api.GET('/api/v2/sender-domains/{id}', { params: { path: { id: body.id } } });
    expect([gone.response.status, gone.error?.code]).toEqual([404, 'not_found']);
  });

  it('answers 503 through the client when DNS fails', async () => {
    const created = await s.api.POST('/api/v2/sender-domains', {
      body: { domain: `${uniqueName('dnsfail')}.example.com` },
    });
    dns.fail = 'ESERVFAIL';
    try {
      const res = await s.api.POST('/api/v2/sender-domains/{id}/verify', {
        params: { path: { id: created.data!.id } },
      });
      expect([res.response.status, res.error?.code]).toEqual([503, 'dns_unavailable']);
    } finally {
      dns.fail = null;
    }
  });

  it('calls every operation of its group', () => {
    expect(s.contract.uncalled(['Admin: sender domains'])).toEqual([]);
  });
});
