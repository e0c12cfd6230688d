/**
 * @ownRegistry: defines events at load, which every app of the same module registry would then
 * list (test/support/groups.js runs such a file by itself).
 */
import { Injectable, Module, OnModuleInit } from '@nestjs/common';
import request from 'supertest';
import { EntityManager } from 'typeorm';
import { defineEvents, event } from '../../src/common/outbox/events';
import { OutboxEventEntity } from '../../src/common/outbox/outbox-event.entity';
import { OutboxRelay } from '../../src/common/outbox/outbox-relay.service';
import { recordEvents } from '../../src/common/outbox/record-event';
import { Clock } from '../../src/common/scheduling/clock';
import { startApp, TestApp } from '../support/app';
import { sample } from '../support/prometheus';
import { createTenant, Tenant, uniqueName } from '../support/tenant';

/**
 * How an event chokes its delivery. `throws`: the subscriber throws; `sql`: a statement of the
 * subscriber fails; `wants-sql`: a statement of `wants` fails, which aborts the batch's
 * transaction outside any savepoint; `once`: the work it leaves to the batch (`batch.once`)
 * throws, after every event ran; `silent`: `wants` swallows its own failed statement, so the
 * batch fails later and nothing says which event did it.
 */
type Poison = 'none' | 'throws' | 'sql' | 'wants-sql' | 'once' | 'silent';

const POISON = defineEvents('poison', {
  probe: event<{ tag: string; poison: Poison; secret: string }>(
    'poison.probe',
    'A probe event whose delivery may fail in a chosen way',
  ),
});

/** A feature module's subscriber that chokes on the events it is told to. */
@Injectable()
class PoisonProbe implements OnModuleInit {
  /** Subscriber runs per event tag, rolled-back runs included. */
  readonly runs = new Map<string, number>();

  constructor(private readonly relay: OutboxRelay) {}

  onModuleInit(): void {
    const payloadOf = (e: { payload: Record<string, unknown> }) =>
      e.payload as { tag: string; poison: Poison; secret: string };
    const failingStatement = (em: EntityManager, secret: string) => em.query('SELECT $1::bigint', [secret]);
    this.relay.subscribe(
      'poison.probe',
      async (em, e, batch) => {
        const { tag, poison, secret } = payloadOf(e);
        this.runs.set(tag, (this.runs.get(tag) ?? 0) + 1);
        if (poison === 'throws') throw new Error(`cannot handle ${tag}`);
        if (poison === 'sql') await failingStatement(em, secret);
        // Good events share one key, as the webhooks fan-out shares an endpoint's drain.
        batch.once(poison === 'once' ? `poison:${tag}` : 'shared', async () => {
          if (poison === 'once') throw new Error('the work left to the batch failed');
          await em.query('SELECT 1');
        });
      },
      {
        wants: async (em, e) => {
          const { poison, secret } = payloadOf(e);
          if (poison === 'wants-sql') await failingStatement(em, secret);
          if (poison === 'silent') await failingStatement(em, secret).catch(() => undefined);
          // A read of its own (the webhooks fan-out reads endpoints): it fails, too, after a silent poison.
          if (poison === 'none') await em.query('SELECT 1');
          return poison !== 'silent';
        },
      },
    );
  }
}

@Module({ providers: [PoisonProbe] })
class PoisonProbeModule {}

const MAX_ATTEMPTS = 4;
const TOKEN = 'metrics-token-outbox-poison-0123';

/**
 * Issue 31 row 7: no event can block the relay. Jobs are off, so an outbox poll happens only when
 * the test calls `relay.poll()`; the Clock is moved past each backoff (a fresh database, as every
 * file that moves it).
 */
describe('a poisoned outbox event among good ones', () => {
  let t: TestApp;
  let relay: OutboxRelay;
  let probe: PoisonProbe;
  let tenant: Tenant;
  let clockNow: Date;
  const logs: Array<Record<string, unknown>> = [];

  beforeAll(async () => {
    t = await startApp({
      freshDatabase: 'outboxpoison',
      env: {
        JOBS_ENABLED: 'false',
        OUTBOX_MAX_ATTEMPTS: String(MAX_ATTEMPTS),
        METRICS_TOKEN: TOKEN,
        METRICS_CACHE_MS: '0',
        LOG_LEVEL: 'warn',
      },
      extraModules: [PoisonProbeModule],
      logDestination: { write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>) },
    });
    relay = t.app.get(OutboxRelay);
    probe = t.app.get(PoisonProbe);
    tenant = await createTenant(t);
    clockNow = new Date();
    jest.spyOn(t.app.get(Clock), 'now').mockImplementation(() => new Date(clockNow));
    // The tenant's own events (account and site created).
    await relay.poll();
  });
  afterAll(() => t.close());

  const record = (payloads: Array<{ tag: string; poison: Poison; secret: string }>) =>
    t.db.transaction((em) =>
      recordEvents(em, { accountId: tenant.accountId, id: tenant.siteId }, POISON.probe, payloads),
    );
  const good = (prefix: string, n: number) =>
    Array.from({ length: n }, (_, i) => ({ tag: `${prefix}-${i}`, poison: 'none' as const, secret: 'none' }));
  const rowsOf = (tags: string[]) =>
    t.db
      .getRepository(OutboxEventEntity)
      .createQueryBuilder('e')
      .where("e.payload->>'tag' IN (:...tags)", { tags })
      .orderBy('e.id')
      .getMany();
  const undispatched = async (tags: string[]) => (await rowsOf(tags)).filter((r) => r.dispatchedAt === null).length;
  const scrape = async () =>
    (await request(t.server).get('/metrics').set('Authorization', `Bearer ${TOKEN}`).expect(200)).text;

  /** What `last_error` says for each poison: the error's class and message, or a SQLSTATE only. */
  const ERRORS: Record<Exclude<Poison, 'none'>, RegExp> = {
    throws: /^Error: cannot handle poison-throws-/,
    sql: /^database error 22P02$/,
    'wants-sql': /^database error 22P02$/,
    once: /^Error: the work left to the batch failed$/,
    silent: /^database error 25P02$/,
  };

  let parkedSoFar = 0;

  it.each(['throws', 'sql', 'wants-sql', 'once', 'silent'] as const)(
    'poison "%s": the 200 good events go in one poll; it is retried with backoff and parked after N attempts, and nothing waits behind it',
    async (poison) => {
      const prefix = uniqueName(poison);
      const tag = `poison-${prefix}`;
      // A value that must never reach a log line or last_error (the database message quotes it).
      const secret = `sb_live_${prefix.replace(/[^a-z0-9]/g, '')}`;
      const before = await scrape();
      const firstGood = good(`${prefix}-a`, 100);
      const secondGood = good(`${prefix}-b`, 100);
      await record([...firstGood, { tag, poison, secret }, ...secondGood]);
      const goodTags = [...firstGood, ...secondGood].map((g) => g.tag);

      await relay.poll();
      expect(await undispatched(goodTags)).toBe(0);
      // No good event was blamed for it.
      expect((await rowsOf(goodTags)).filter((r) => r.attempts > 0)).toEqual([]);
      let [row] = await rowsOf([tag]);
      expect(row).toEqual(
        expect.objectContaining({
          attempts: 1,
          dispatchedAt: null,
          parkedAt: null,
          lastError: expect.stringMatching(ERRORS[poison]),
        }),
      );
      // 2^1 s after the attempt, by the Clock.
      expect(row.nextAttemptAt!.getTime()).toBe(clockNow.getTime() + 2_000);

      for (let attempt = 2; attempt <= MAX_ATTEMPTS + 1; attempt++) {
        // Not due yet: a poll leaves it alone.
        await relay.poll();
        expect((await rowsOf([tag]))[0].attempts).toBe(Math.min(attempt - 1, MAX_ATTEMPTS));
        clockNow = new Date(clockNow.getTime() + 2 * 3600_000);
        const later = good(`${prefix}-later${attempt}`, 10);
        await record(later);
        await relay.poll();
        expect(await undispatched(later.map((g) => g.tag))).toBe(0);
        [row] = await rowsOf([tag]);
        expect(row.dispatchedAt).toBeNull();
        expect(row.attempts).toBe(Math.min(attempt, MAX_ATTEMPTS));
        if (attempt < MAX_ATTEMPTS) {
          expect(row.parkedAt).toBeNull();
          expect(row.nextAttemptAt!.getTime()).toBe(clockNow.getTime() + 2 ** attempt * 1000);
        } else {
          expect(row.parkedAt).toEqual(expect.any(Date));
          expect(row.nextAttemptAt).toBeNull();
        }
      }
      expect(row.parkedAt!.getTime()).toBe(clockNow.getTime() - 2 * 3600_000);
      if (poison === 'throws' || poison === 'sql' || poison === 'once') expect(probe.runs.get(tag)).toBe(MAX_ATTEMPTS);
      else expect(probe.runs.has(tag)).toBe(false);
      for (const g of goodTags) expect(probe.runs.get(g)).toBeGreaterThanOrEqual(1);

      parkedSoFar += 1;
      const after = await scrape();
      const delta = (name: string) => sample(after, name)! - (sample(before, name) ?? 0);
      expect(delta('sitebase_outbox_events_parked_total')).toBe(1);
      expect(delta('sitebase_outbox_delivery_failures_total')).toBe(MAX_ATTEMPTS);
      expect(sample(after, 'sitebase_outbox_events_parked')).toBe(parkedSoFar);
      expect(sample(after, 'sitebase_outbox_events_pending')).toBe(0);

      // One line when it is parked, one per retry before; no stack, statement or payload value.
      const mine = logs.filter((l) => l.eventId === row.id);
      expect(mine.map((l) => [l.level, l.msg])).toEqual([
        ...Array.from({ length: MAX_ATTEMPTS - 1 }, () => [40, 'Outbox event delivery failed; it will be retried']),
        [50, 'Outbox event parked: its delivery kept failing; re-drive it once fixed'],
      ]);
      expect(mine[MAX_ATTEMPTS - 1]).toEqual(
        expect.objectContaining({ event: 'poison.probe', attempts: MAX_ATTEMPTS, error: row.lastError }),
      );
      const text = JSON.stringify(logs) + (row.lastError ?? '');
      expect(text).not.toContain(secret);
      expect(text).not.toMatch(/SELECT|stack|"err"/);
    },
  );

  it('several poisons in one batch: each counts one attempt, logged once, and the good events all go', async () => {
    const prefix = uniqueName('mixed');
    const poisons = (['throws', 'once', 'silent'] as const).map((poison) => ({
      tag: `poison-${prefix}-${poison}`,
      poison,
      secret: 'x',
    }));
    const goods = [0, 1, 2, 3].map((i) => good(`${prefix}-${i}`, 50));
    await record([...goods[0], poisons[0], ...goods[1], poisons[1], ...goods[2], poisons[2], ...goods[3]]);
    const before = await scrape();
    await relay.poll();
    const goodTags = goods.flat().map((g) => g.tag);
    expect(await undispatched(goodTags)).toBe(0);
    expect((await rowsOf(goodTags)).filter((r) => r.attempts > 0)).toEqual([]);
    const rows = await rowsOf(poisons.map((p) => p.tag));
    expect(rows.map((r) => [r.payload.poison, r.attempts, r.dispatchedAt, r.parkedAt])).toEqual([
      ['throws', 1, null, null],
      ['once', 1, null, null],
      ['silent', 1, null, null],
    ]);
    // The throwing event's first count was rolled back with the batch the `once` work failed: counted once.
    const after = await scrape();
    expect(
      sample(after, 'sitebase_outbox_delivery_failures_total')! -
        sample(before, 'sitebase_outbox_delivery_failures_total')!,
    ).toBe(3);
    for (const r of rows) expect(logs.filter((l) => l.eventId === r.id)).toHaveLength(1);
  });

  it('a parked event re-driven as docs/operations.md says is delivered at the next poll once its cause is gone', async () => {
    const [parked] = await t.db.query<Array<{ id: string; tag: string }>>(
      "SELECT id, payload->>'tag' AS tag FROM outbox_events WHERE parked_at IS NOT NULL AND payload->>'poison' = 'throws'",
    );
    // The cause is fixed: the payload no longer chokes the subscriber.
    await t.db.query(`UPDATE outbox_events SET payload = jsonb_set(payload, '{poison}', '"none"') WHERE id = $1`, [
      parked.id,
    ]);
    await t.db.query(
      'UPDATE outbox_events SET parked_at = NULL, attempts = 0, next_attempt_at = NULL WHERE parked_at IS NOT NULL AND id = $1',
      [parked.id],
    );
    await relay.poll();
    const [row] = await rowsOf([parked.tag]);
    expect(row.dispatchedAt).toEqual(expect.any(Date));
    expect(sample(await scrape(), 'sitebase_outbox_events_parked')).toBe(parkedSoFar - 1);
  });
});
