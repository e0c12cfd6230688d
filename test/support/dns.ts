import { Global, Module, Type } from '@nestjs/common';
import { TXT_RESOLVER, TxtResolver } from '../../src/senders/sender-dns';
import type { Tenant } from './tenant';

/**
 * A DNS of the test's own for sender-domain verification: `startApp({ extraModules: [dns.module] })`
 * gives the app this resolver (the TXT_RESOLVER token) instead of the system's. `publish` adds
 * TXT records; `fail` makes every lookup fail with a code (`ESERVFAIL`) or hang (`hang`).
 */
export interface FakeDns {
  module: Type;
  publish(name: string, value: string): void;
  unpublish(name: string): void;
  fail: string | null;
  /** Names looked up, in order. */
  lookups: string[];
  /** The same answers for a verifier in the test (mailauth's `resolver(name, 'TXT')`). */
  resolve(name: string): Promise<string[][]>;
}

export function fakeDns(): FakeDns {
  const records = new Map<string, string[]>();
  const dns: FakeDns = {
    module: undefined as unknown as Type,
    publish: (name, value) => records.set(name, [...(records.get(name) ?? []), value]),
    unpublish: (name) => records.delete(name),
    fail: null,
    lookups: [],
    resolve: (name) => resolver.resolveTxt(name),
  };
  const resolver: TxtResolver = {
    resolveTxt(name: string) {
      dns.lookups.push(name);
      if (dns.fail === 'hang') return new Promise<string[][]>(() => undefined);
      if (dns.fail) return Promise.reject(Object.assign(new Error(`queryTxt ${dns.fail} ${name}`), { code: dns.fail }));
      const values = records.get(name);
      if (!values) return Promise.reject(Object.assign(new Error(`queryTxt ENOTFOUND ${name}`), { code: 'ENOTFOUND' }));
      // As DNS carries them: strings of at most 255 characters, one array per record.
      return Promise.resolve(values.map((v) => v.match(/.{1,255}/g) ?? ['']));
    },
  };
  @Global()
  @Module({ providers: [{ provide: TXT_RESOLVER, useValue: resolver }], exports: [TXT_RESOLVER] })
  class FakeDnsModule {}
  dns.module = FakeDnsModule;
  return dns;
}

export interface SenderDomainBody {
  id: number;
  domain: string;
  status: string;
  dkimSelector: string;
  records: { verification: { name: string; value: string }; dkim: { name: string; value: string } };
}

/** Adds `domain` to the tenant's account, publishes both records in `dns` and verifies it. */
export async function verifySenderDomain(tenant: Tenant, dns: FakeDns, domain: string): Promise<SenderDomainBody> {
  const added = await tenant.api.post('/api/v2/sender-domains').send({ domain });
  if (added.status !== 201) throw new Error(`adding ${domain}: ${added.status} ${JSON.stringify(added.body)}`);
  const body = added.body as SenderDomainBody;
  dns.publish(body.records.verification.name, body.records.verification.value);
  dns.publish(body.records.dkim.name, body.records.dkim.value);
  const verified = await tenant.api.post(`/api/v2/sender-domains/${body.id}/verify`);
  if (verified.status !== 200) throw new Error(`verifying ${domain}: ${verified.status}`);
  return verified.body as SenderDomainBody;
}
