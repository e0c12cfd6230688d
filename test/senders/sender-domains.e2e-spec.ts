import { createPublicKey } from 'node:crypto';
import { OutboxEventEntity } from '../../src/common/outbox/outbox-event.entity';
import { SenderDomainEntity } from '../../src/senders/entities/sender-domain.entity';
import { MAX_SENDER_DOMAINS } from '../../src/senders/sender-domains.service';
import { startApp, TestApp } from '../support/app';
import { FakeDns, fakeDns, SenderDomainBody } from '../support/dns';
import { ISO } from '../support/matchers';
import { expectExactProblem, expectProblem } from '../support/problem';
import { agent, createTenant, Tenant, uniqueName } from '../support/tenant';

const URL = '/api/v2/sender-domains';

describe('/api/v2/sender-domains', () => {
  let t: TestApp;
  let dns: FakeDns;
  let a: Tenant;
  let b: Tenant;
  const logged: string[] = [];

  beforeAll(async () => {
    dns = fakeDns();
    t = await startApp({
      extraModules: [dns.module],
      // The races below fire 12 adds and 8 verifies at once: past the account's `outbound`
      // cap in flight, which fair-share.e2e-spec tests; here every answer must be the domain's.
      env: { SENDER_DNS_TIMEOUT_MS: '300', LOG_LEVEL: 'debug', RATE_LIMIT_OUTBOUND_CONCURRENCY: '0' },
      logDestination: { write: (line) => void logged.push(line) },
    });
    [a, b] = await Promise.all([createTenant(t), createTenant(t)]);
  });
  afterAll(() => t.close());

  const rows = () => t.db.getRepository(SenderDomainEntity);
  const privateKeyOf = async (id: number) =>
    (await rows().findOneOrFail({ where: { id }, select: { id: true, dkimPrivateKey: true } })).dkimPrivateKey;
  const accountEvents = (accountId: number, name: string) =>
    t.db.getRepository(OutboxEventEntity).find({ where: { accountId, name }, order: { id: 'ASC' } });
  const domain = () => `${uniqueName('mail')}.example.com`;
  const add = (x: Tenant, d: string) => x.api.post(URL).send({ domain: d });
  const publish = (body: SenderDomainBody, which: Array<'verification' | 'dkim'> = ['verification', 'dkim']) => {
    for (const w of which) dns.publish(body.records[w].name, body.records[w].value);
  };

  describe('POST', () => {
    it('adds a pending domain with its challenge and DKIM records; the private key stays in the database', async () => {
      const d = domain();
      const res = await add(a, d);
      expect(res.status).toBe(201);
      expect(res.headers.location).toMatch(new RegExp(`${URL}/${res.body.id}$`));
      const selector = res.body.dkimSelector as string;
      expect(res.body).toEqual({
        id: expect.any(Number),
        domain: d,
        status: 'pending',
        dkimSelector: expect.stringMatching(/^sb[0-9a-f]{10}$/),
        records: {
          verification: {
            type: 'TXT',
            name: `_sitebase-challenge.${d}`,
            value: expect.stringMatching(/^sitebase-verification=[A-Za-z0-9_-]{32}$/),
          },
          dkim: {
            type: 'TXT',
            name: `${selector}._domainkey.${d}`,
            value: expect.stringMatching(/^v=DKIM1; k=rsa; p=[A-Za-z0-9+/=]+$/),
          },
        },
        verifiedAt: null,
        createdAt: ISO,
      });
      // The published key is an RSA 2048 public key, the pair of the one kept for signing.
      const p = (res.body.records.dkim.value as string).split('p=')[1];
      const key = createPublicKey({ key: Buffer.from(p, 'base64'), format: 'der', type: 'spki' });
      expect([key.asymmetricKeyType, key.asymmetricKeyDetails?.modulusLength]).toEqual(['rsa', 2048]);
      const privateKey = await privateKeyOf(res.body.id);
      expect(privateKey).toMatch(/^-----BEGIN PRIVATE KEY-----/);
      expect(createPublicKey(privateKey).export({ type: 'spki', format: 'der' }).toString('base64')).toBe(p);
      const row = await rows().findOneByOrFail({ id: res.body.id });
      expect(row).toEqual(expect.objectContaining({ accountId: a.accountId, domain: d, status: 'pending' }));
      // Never in an answer: not the add's, not the list's.
      const list = await a.api.get(URL);
      for (const text of [JSON.stringify(res.body), JSON.stringify(list.body)]) {
        expect(text).not.toContain('PRIVATE KEY');
        expect(text).not.toContain(privateKey.split('\n')[1]);
      }
      expect((await accountEvents(a.accountId, 'sender_domain.created')).map((e) => e.payload)).toContainEqual({
        id: res.body.id,
        domain: d,
      });
    });

    it('lower-cases the domain and stores an internationalised one in its ASCII form', async () => {
      const name = uniqueName('Mixed');
      const res = await add(a, `${name}.Example.COM`);
      expect([res.status, res.body.domain]).toEqual([201, `${name.toLowerCase()}.example.com`]);
      const idn = await add(a, `${name}.bücher.example`);
      expect([idn.status, idn.body.domain]).toEqual([201, `${name.toLowerCase()}.xn--bcher-kva.example`]);
    });

    it.each([
      ['1.2.3.4', 'must be a domain name, not an IP address'],
      ['[::1]', 'must be a domain name such as example.com'],
      ['example.com.', 'must not end with a dot'],
      ['localhost', 'must be a domain name such as example.com'],
      ['-bad.example.com', 'must be a domain name such as example.com'],
      ['bad-.example.com', 'must be a domain name such as example.com'],
      ['exa mple.com', 'must be a domain name such as example.com'],
      ['a@example.com', 'must be a domain name such as example.com'],
      ['a..example.com', 'must be a domain name such as example.com'],
      [`${'a'.repeat(64)}.example.com`, 'must be a domain name such as example.com'],
      [`${'abcdefghi.'.repeat(25)}example.com`, 'must be at most 253 characters'],
      ['', 'must be a domain name such as example.com'],
    ])('refuses %j with a 400 naming domain', async (input, message) => {
      const before = await rows().countBy({ accountId: a.accountId });
      const res = await add(a, input);
      expectExactProblem(res, 400, 'validation_failed', 'Validation failed', '1 field is invalid', [
        { path: 'domain', message },
      ]);
      expect(await rows().countBy({ accountId: a.accountId })).toBe(before);
    });

    it('refuses a non-string, a missing domain and unknown fields', async () => {
      for (const body of [{ domain: 42 }, {}, { domain: domain(), status: 'verified' }]) {
        const res = await a.api.post(URL).send(body);
        expectProblem(res, 400, 'validation_failed');
      }
    });

    it('takes a domain once per account (409), whatever its case', async () => {
      const d = domain();
      expect((await add(a, d)).status).toBe(201);
      expectExactProblem(
        await add(a, d.toUpperCase()),
        409,
        'domain_exists',
        'Conflict',
        `${d} is already a sender domain of this account`,
      );
      expect(await rows().countBy({ accountId: a.accountId, domain: d })).toBe(1);
    });

    it('holds an account to MAX_SENDER_DOMAINS (409 limit_reached, no key pair made), another account unaffected', async () => {
      const c = await createTenant(t);
      const made = await Promise.all(Array.from({ length: MAX_SENDER_DOMAINS }, () => add(c, domain())));
      expect(made.every((r) => r.status === 201)).toBe(true);
      const over = await add(c, domain());
      expectExactProblem(
        over,
        409,
        'limit_reached',
        'Conflict',
        `An account has at most ${MAX_SENDER_DOMAINS} sender domains; remove one first`,
      );
      expect(await rows().countBy({ accountId: c.accountId })).toBe(MAX_SENDER_DOMAINS);
      expect((await add(b, domain())).status).toBe(201);
      // Removing one makes room again.
      expect((await c.api.delete(`${URL}/${(made[0].body as SenderDomainBody).id}`)).status).toBe(204);
      expect((await add(c, domain())).status).toBe(201);
    });

    it('lets another account claim the same domain with a challenge and key of its own, verified only by them', async () => {
      const d = domain();
      const mine = (await add(a, d)).body as SenderDomainBody;
      const theirs = (await add(b, d)).body as SenderDomainBody;
      expect(theirs.id).not.toBe(mine.id);
      expect(theirs.records.verification.name).toBe(mine.records.verification.name);
      expect(theirs.records.verification.value).not.toBe(mine.records.verification.value);
      expect(theirs.records.dkim.name).not.toBe(mine.records.dkim.name);
      // A's records in DNS verify A's claim, not B's.
      publish(mine);
      expect((await a.api.post(`${URL}/${mine.id}/verify`)).body.status).toBe('verified');
      const refused = await b.api.post(`${URL}/${theirs.id}/verify`);
      expectProblem(refused, 422, 'dns_records_missing');
      expect(await rows().findOneByOrFail({ id: theirs.id })).toEqual(expect.objectContaining({ status: 'pending' }));
      publish(theirs);
      expect((await b.api.post(`${URL}/${theirs.id}/verify`)).body.status).toBe('verified');
    });
  });

  describe('races', () => {
    it('one domain added 12 times at once: one 201, eleven 409 domain_exists, one row', async () => {
      const d = domain();
      const answers = await Promise.all(Array.from({ length: 12 }, () => add(a, d)));
      expect(answers.map((r) => r.status).sort()).toEqual([201, ...Array<number>(11).fill(409)]);
      for (const r of answers.filter((r) => r.status === 409)) expectProblem(r, 409, 'domain_exists');
      expect(await rows().countBy({ accountId: a.accountId, domain: d })).toBe(1);
    });

    it('one domain verified 8 times at once: every answer verified, one sender_domain.verified', async () => {
      const body = (await add(a, domain())).body as SenderDomainBody;
      publish(body);
      const answers = await Promise.all(Array.from({ length: 8 }, () => a.api.post(`${URL}/${body.id}/verify`)));
      expect(answers.map((r) => [r.status, r.body.status])).toEqual(Array(8).fill([200, 'verified']));
      const events = (await accountEvents(a.accountId, 'sender_domain.verified')).filter(
        (e) => e.payload.id === body.id,
      );
      expect(events).toHaveLength(1);
    });
  });

  describe('POST /{id}/verify', () => {
    it('answers 422 naming each record not found, then verifies once both are published', async () => {
      const body = (await add(a, domain())).body as SenderDomainBody;
      const url = `${URL}/${body.id}/verify`;
      const none = await a.api.post(url);
      expectExactProblem(
        none,
        422,
        'dns_records_missing',
        'DNS records not found',
        `Publish verification and dkim record(s) for ${body.domain}, then verify again (DNS changes can take a while to be seen)`,
        [
          {
            path: 'records.verification',
            message: `no TXT record ${body.records.verification.name} with the value ${body.records.verification.value}`,
          },
          {
            path: 'records.dkim',
            message: `no TXT record ${body.records.dkim.name} with this domain's DKIM key (p=…)`,
          },
        ],
      );
      // A record with another value at the name does not count.
      dns.publish(body.records.verification.name, 'sitebase-verification=someone-else');
      dns.publish(body.records.dkim.name, 'v=DKIM1; k=rsa; p=AAAA');
      expect((await a.api.post(url)).body.errors.map((e: { path: string }) => e.path)).toEqual([
        'records.verification',
        'records.dkim',
      ]);
      publish(body, ['verification']);
      const half = await a.api.post(url);
      expectProblem(half, 422, 'dns_records_missing');
      expect(half.body.errors.map((e: { path: string }) => e.path)).toEqual(['records.dkim']);
      expect(await rows().findOneByOrFail({ id: body.id })).toEqual(
        expect.objectContaining({ status: 'pending', verifiedAt: null }),
      );
      publish(body, ['dkim']);
      const ok = await a.api.post(url);
      expect(ok.status).toBe(200);
      expect(ok.body).toEqual({ ...body, status: 'verified', verifiedAt: ISO, createdAt: ISO });
      expect(await rows().findOneByOrFail({ id: body.id })).toEqual(
        expect.objectContaining({ status: 'verified', verifiedAt: expect.any(Date) }),
      );
      // Verifying again answers the same; the event is recorded once.
      expect((await a.api.post(url)).status).toBe(200);
      const events = (await accountEvents(a.accountId, 'sender_domain.verified')).filter(
        (e) => e.payload.id === body.id,
      );
      expect(events.map((e) => [e.siteId, e.payload])).toEqual([[null, { id: body.id, domain: body.domain }]]);
    });

    it('answers 503 when DNS fails or is slower than SENDER_DNS_TIMEOUT_MS, and changes nothing', async () => {
      const body = (await add(a, domain())).body as SenderDomainBody;
      publish(body);
      try {
        dns.fail = 'ESERVFAIL';
        const failed = await a.api.post(`${URL}/${body.id}/verify`);
        expectExactProblem(
          failed,
          503,
          'dns_unavailable',
          'DNS did not answer',
          `The TXT lookup of ${body.records.verification.name} failed; try again later`,
        );
        expect(failed.headers['retry-after']).toBe('30');
        dns.fail = 'hang';
        const started = Date.now();
        const slow = await a.api.post(`${URL}/${body.id}/verify`);
        expectProblem(slow, 503, 'dns_timeout');
        expect(Date.now() - started).toBeLessThan(3000);
      } finally {
        dns.fail = null;
      }
      expect((await rows().findOneByOrFail({ id: body.id })).status).toBe('pending');
      expect((await a.api.post(`${URL}/${body.id}/verify`)).body.status).toBe('verified');
    });
  });

  describe('GET', () => {
    it("lists the account's domains newest first, a page at a time, and none of another account's", async () => {
      const x = await createTenant(t);
      const first = (await add(x, domain())).body as SenderDomainBody;
      const second = (await add(x, domain())).body as SenderDomainBody;
      await add(b, domain());
      const page1 = await x.api.get(`${URL}?limit=1`);
      expect(page1.status).toBe(200);
      expect(page1.body).toEqual({ data: [second], pagination: { limit: 1, nextCursor: expect.any(String) } });
      const page2 = await x.api.get(`${URL}?limit=1&cursor=${page1.body.pagination.nextCursor}`);
      expect(page2.body).toEqual({ data: [first], pagination: { limit: 1, nextCursor: null } });
      expect((await x.api.get(`${URL}/${first.id}`)).body).toEqual(first);
    });

    it("answers 404 for another account's domain, on every route, and leaves it as it was", async () => {
      const theirs = (await add(b, domain())).body as SenderDomainBody;
      publish(theirs);
      for (const res of [
        await a.api.get(`${URL}/${theirs.id}`),
        await a.api.post(`${URL}/${theirs.id}/verify`),
        await a.api.delete(`${URL}/${theirs.id}`),
      ])
        expectExactProblem(res, 404, 'not_found', 'Not found', 'Sender domain not found');
      expect(await rows().findOneByOrFail({ id: theirs.id })).toEqual(expect.objectContaining({ status: 'pending' }));
    });
  });

  describe('DELETE /{id}', () => {
    it('removes the domain and its key (204), records sender_domain.deleted, then 404', async () => {
      const body = (await add(a, domain())).body as SenderDomainBody;
      const res = await a.api.delete(`${URL}/${body.id}`);
      expect([res.status, res.text]).toEqual([204, '']);
      expect(await rows().countBy({ id: body.id })).toBe(0);
      expect((await accountEvents(a.accountId, 'sender_domain.deleted')).map((e) => e.payload)).toContainEqual({
        id: body.id,
        domain: body.domain,
      });
      expectProblem(await a.api.get(`${URL}/${body.id}`), 404, 'not_found');
      expectProblem(await a.api.delete(`${URL}/${body.id}`), 404, 'not_found');
    });
  });

  describe('credentials', () => {
    it('refuses a key restricted to some sites (403 key_restricted) and no key (401) on every route', async () => {
      const body = (await add(a, domain())).body as SenderDomainBody;
      const made = await a.api.post('/api/v2/api-keys').send({ name: 'one site', siteIds: [a.siteId] });
      const restricted = agent(t, made.body.key as string);
      const anonymous = agent(t);
      const calls = (x: typeof restricted) => [
        x.post(URL).send({ domain: domain() }),
        x.get(URL),
        x.get(`${URL}/${body.id}`),
        x.post(`${URL}/${body.id}/verify`),
        x.delete(`${URL}/${body.id}`),
      ];
      for (const res of await Promise.all(calls(restricted))) expectProblem(res, 403, 'key_restricted');
      for (const res of await Promise.all(calls(anonymous))) expectProblem(res, 401, 'missing_credential');
      expect(await rows().countBy({ accountId: a.accountId, id: body.id })).toBe(1);
    });

    it('never writes a private key to the log', async () => {
      const keys = await rows().find({ where: { accountId: a.accountId }, select: { id: true, dkimPrivateKey: true } });
      expect(keys.length).toBeGreaterThan(0);
      const text = logged.join('\n');
      expect(text).not.toContain('PRIVATE KEY');
      for (const k of keys) expect(text).not.toContain(k.dkimPrivateKey.split('\n')[1]);
    });
  });
});
