/**
 * @ownRegistry: defines events at load, which every app of the same module registry would then
 * list (test/support/groups.js runs such a file by itself).
 */
import { Injectable, Module, OnModuleInit } from '@nestjs/common';
import { OutboxEventEntity } from '../../src/common/outbox/outbox-event.entity';
import { OutboxEvent, OutboxRelay } from '../../src/common/outbox/outbox-relay.service';
import { defineEvents, event } from '../../src/common/outbox/events';
import { recordEvent } from '../../src/common/outbox/record-event';
import { QueueService } from '../../src/common/queue/queue.service';
import { eventually, startApp, TestApp } from '../support/app';
import { createTenant, Tenant, uniqueName } from '../support/tenant';

/** The events this test records, declared as a module declares its own. */
const PROBE = defineEvents('probe', {
  happened: event<{ tag: string; once?: string }>('probe.happened', 'A probe event of a site'),
  accountLevel: event<{ tag: string }>('probe.account_level', 'A probe event of an account'),
  unheard: event<{ tag: string }>('unheard.event', 'A probe event no subscriber listens to'),
  wanted: event<{ tag: string; want: 'yes' | 'no' | 'throws' }>(
    'probe.wanted',
    'A probe event a subscriber may or may not want',
  ),
});

interface Run {
  tag: string;
  retryCount: number;
}

/** A module like any feature module: registers jobs and subscribes to the outbox at init. */
@Injectable()
class QueueProbe implements OnModuleInit {
  readonly runs: Run[] = [];
  readonly dispatched: OutboxEvent[] = [];
  /** Events whose first delivery attempt fails (the subscriber throws once). */
  readonly failFirstDelivery = new Set<string>();
  /** Events whose every delivery attempt fails. */
  readonly failAlways = new Set<string>();
  deliveryAttempts = new Map<string, number>();
  /** Runs of work deferred with `batch.once`: its key, and the tags of its events dispatched by then. */
  readonly onceRuns: Array<{ key: string; seen: string[] }> = [];
  /** Tags of the probe.wanted events its subscriber ran for, and how often its shared read loaded. */
  readonly wantedRuns: string[] = [];
  memoLoads = 0;

  constructor(
    private readonly queue: QueueService,
    private readonly relay: OutboxRelay,
  ) {}

  onModuleInit(): void {
    this.queue.register<{ tag: string }>('probe.simple', async ({ tag }, job) => {
      this.runs.push({ tag, retryCount: job.retryCount });
    });
    this.queue.register<{ tag: string }>(
      'probe.flaky',
      async ({ tag }, job) => {
        this.runs.push({ tag, retryCount: job.retryCount });
        if (job.retryCount === 0) throw new Error('first attempt fails');
      },
      { retryLimit: 3, retryDelaySeconds: 1, retryBackoff: false },
    );
    this.relay.subscribe('probe.*', async (em, event, batch) => {
      const tag = String(event.payload.tag);
      const attempt = (this.deliveryAttempts.get(tag) ?? 0) + 1;
      this.deliveryAttempts.set(tag, attempt);
      const key = event.payload.once;
      if (typeof key === 'string')
        batch.once(key, async () => {
          const seen = this.dispatched.filter((e) => e.payload.once === key).map((e) => String(e.payload.tag));
          this.onceRuns.push({ key, seen });
          // In the batch's transaction: the job exists only if the batch commits.
          await this.queue.send('probe.simple', { tag: key }, { em });
        });
      if (attempt === 1 && this.failFirstDelivery.has(tag)) throw new Error('subscriber fails once');
      if (this.failAlways.has(tag)) throw new Error('subscriber always fails');
      this.dispatched.push(event);
    });
    this.relay.subscribe(
      'probe.wanted',
      async (_em, event) => {
        this.wantedRuns.push(String(event.payload.tag));
      },
      {
        wants: async (_em, event, batch) => {
          await batch.memo('probe.shared-read', async () => {
            this.memoLoads += 1;
            return true;
          });
          if (event.payload.want === 'throws') throw new Error('cannot tell');
          return event.payload.want === 'yes';
        },
      },
    );
  }
}

@Module({ providers: [QueueProbe] })
class QueueProbeModule {}

describe('the outbox and the job queue', () => {
  let t: TestApp;
  let probe: QueueProbe;
  let queue: QueueService;
  let x: Tenant;

  beforeAll(async () => {
    t = await startApp({ extraModules: [QueueProbeModule] });
    probe = t.app.get(QueueProbe);
    queue = t.app.get(QueueService);
    x = await createTenant(t);
  });
  afterAll(() => t.close());

  const rollback = new Error('roll back');
  const eventRows = (tag: string) =>
    t.db.getRepository(OutboxEventEntity).createQueryBuilder('e').where("e.payload->>'tag' = :tag", { tag }).getMany();
  const jobRows = (name: string, tag: string): Promise<Array<{ state: string; retry_count: number }>> =>
    t.db.query("SELECT state, retry_count FROM pgboss.job WHERE name = $1 AND data->>'tag' = $2", [name, tag]);
  const dispatchedRow = async (tag: string) => {
    const [row] = await eventRows(tag);
    return row?.dispatchedAt ? row : undefined;
  };

  describe('recordEvent', () => {
    it('in a rolled-back transaction leaves no event; a committed one reaches the subscriber once', async () => {
      const lost = uniqueName('lost');
      const kept = uniqueName('kept');
      await expect(
        t.db.transaction(async (em) => {
          await recordEvent(em, { accountId: x.accountId, id: x.siteId }, PROBE.happened, { tag: lost });
          throw rollback;
        }),
      ).rejects.toBe(rollback);
      await t.db.transaction((em) =>
        recordEvent(em, { accountId: x.accountId, id: x.siteId }, PROBE.happened, { tag: kept }),
      );

      const row = await eventually(() => dispatchedRow(kept));
      expect(row).toEqual({
        id: expect.any(Number),
        accountId: x.accountId,
        siteId: x.siteId,
        name: 'probe.happened',
        payload: { tag: kept },
        createdAt: expect.any(Date),
        dispatchedAt: expect.any(Date),
        attempts: 0,
        nextAttemptAt: null,
        lastError: null,
        parkedAt: null,
      });
      const delivered = probe.dispatched.filter((e) => e.payload.tag === kept);
      expect(delivered).toEqual([
        {
          id: row.id,
          accountId: x.accountId,
          siteId: x.siteId,
          name: 'probe.happened',
          payload: { tag: kept },
          createdAt: row.createdAt,
        },
      ]);
      expect(await eventRows(lost)).toEqual([]);
      expect(probe.deliveryAttempts.has(lost)).toBe(false);
    });

    it('records account-level events without a site', async () => {
      const tag = uniqueName('acct');
      await t.db.transaction((em) => recordEvent(em, { accountId: x.accountId }, PROBE.accountLevel, { tag }));
      const row = await eventually(() => dispatchedRow(tag));
      expect(row).toEqual(
        expect.objectContaining({ accountId: x.accountId, siteId: null, name: 'probe.account_level' }),
      );
    });

    it('a subscriber that fails is retried: the event is delivered at least once', async () => {
      const tag = uniqueName('retry');
      probe.failFirstDelivery.add(tag);
      await t.db.transaction((em) =>
        recordEvent(em, { accountId: x.accountId, id: x.siteId }, PROBE.happened, { tag }),
      );
      const row = await eventually(() => dispatchedRow(tag));
      expect(probe.deliveryAttempts.get(tag)).toBe(2);
      expect(probe.dispatched.filter((e) => e.payload.tag === tag)).toEqual([expect.objectContaining({ id: row.id })]);
    });

    it('an event whose subscriber keeps failing does not hold back the events after it', async () => {
      const bad = uniqueName('bad');
      const good = uniqueName('good');
      probe.failAlways.add(bad);
      await t.db.transaction(async (em) => {
        await recordEvent(em, { accountId: x.accountId, id: x.siteId }, PROBE.happened, { tag: bad });
        await recordEvent(em, { accountId: x.accountId, id: x.siteId }, PROBE.happened, { tag: good });
      });
      const delivered = await eventually(() => dispatchedRow(good));
      expect(delivered.name).toBe('probe.happened');
      const [failing] = await eventRows(bad);
      expect(failing).toEqual(
        expect.objectContaining({
          dispatchedAt: null,
          parkedAt: null,
          attempts: expect.any(Number),
          lastError: 'Error: subscriber always fails',
        }),
      );
      expect(failing.attempts).toBeGreaterThanOrEqual(1);
      expect(failing.nextAttemptAt!.getTime()).toBeGreaterThan(Date.now() - 1000);
      expect(probe.dispatched.some((e) => e.payload.tag === bad)).toBe(false);
    });

    it('work a subscriber leaves to its batch runs once per key after every event, in the batch; not for a rolled-back event', async () => {
      const shared = uniqueName('once');
      const dropped = uniqueName('dropped');
      const [a1, a2, bad] = [uniqueName('a1'), uniqueName('a2'), uniqueName('bad')];
      probe.failAlways.add(bad);
      const scope = { accountId: x.accountId, id: x.siteId };
      await t.db.transaction(async (em) => {
        await recordEvent(em, scope, PROBE.happened, { tag: a1, once: shared });
        await recordEvent(em, scope, PROBE.happened, { tag: bad, once: dropped });
        await recordEvent(em, scope, PROBE.happened, { tag: a2, once: shared });
      });
      await eventually(() => dispatchedRow(a2));
      await eventually(async () =>
        (await jobRows('probe.simple', shared))[0]?.state === 'completed' ? true : undefined,
      );
      expect(probe.onceRuns.filter((r) => r.key === shared)).toEqual([{ key: shared, seen: [a1, a2] }]);
      expect(probe.onceRuns.some((r) => r.key === dropped)).toBe(false);
      expect(await jobRows('probe.simple', dropped)).toEqual([]);
    });

    it('a subscriber is not run for an event it does not want; a read its batch shares loads once', async () => {
      const tags = { yes: uniqueName('yes'), no: uniqueName('no'), throws: uniqueName('throws') };
      const loads = probe.memoLoads;
      await t.db.transaction(async (em) => {
        for (const want of ['yes', 'no', 'throws'] as const)
          await recordEvent(em, { accountId: x.accountId, id: x.siteId }, PROBE.wanted, { tag: tags[want], want });
      });
      for (const tag of Object.values(tags)) await eventually(() => dispatchedRow(tag));
      // Not wanted: dispatched without it. A `wants` that throws counts as wanting.
      const ran = probe.wantedRuns.filter((tag) => Object.values(tags).includes(tag));
      expect(ran.sort()).toEqual([tags.yes, tags.throws].sort());
      expect(probe.memoLoads - loads).toBe(1);
    });

    it('events nobody subscribes to are still marked dispatched', async () => {
      const tag = uniqueName('nobody');
      await t.db.transaction((em) => recordEvent(em, { accountId: x.accountId, id: x.siteId }, PROBE.unheard, { tag }));
      await eventually(() => dispatchedRow(tag));
      expect(probe.deliveryAttempts.has(tag)).toBe(false);
    });
  });

  describe('QueueService', () => {
    it('a job sent in a rolled-back transaction never runs; a committed one runs', async () => {
      expect(queue.isRunning).toBe(true);
      const lost = uniqueName('lost');
      const kept = uniqueName('kept');
      await expect(
        t.db.transaction(async (em) => {
          await queue.send('probe.simple', { tag: lost }, { em });
          throw rollback;
        }),
      ).rejects.toBe(rollback);
      const id = await t.db.transaction((em) => queue.send('probe.simple', { tag: kept }, { em }));
      expect(id).toEqual(expect.any(String));

      await eventually(async () =>
        (await jobRows('probe.simple', kept))[0]?.state === 'completed' ? true : undefined,
      );
      expect(probe.runs.filter((r) => r.tag === kept)).toEqual([{ tag: kept, retryCount: 0 }]);
      expect(await jobRows('probe.simple', lost)).toEqual([]);
      expect(probe.runs.some((r) => r.tag === lost)).toBe(false);
    });

    it('a job sent without a transaction runs', async () => {
      const tag = uniqueName('plain');
      await queue.send('probe.simple', { tag });
      await eventually(async () => ((await jobRows('probe.simple', tag))[0]?.state === 'completed' ? true : undefined));
      expect(probe.runs.filter((r) => r.tag === tag)).toEqual([{ tag, retryCount: 0 }]);
      expect(await jobRows('probe.simple', tag)).toEqual([{ state: 'completed', retry_count: 0 }]);
    });

    it('a job that fails once is retried, then succeeds', async () => {
      const tag = uniqueName('flaky');
      await queue.send('probe.flaky', { tag });
      await eventually(async () => ((await jobRows('probe.flaky', tag))[0]?.state === 'completed' ? true : undefined));
      expect(probe.runs.filter((r) => r.tag === tag)).toEqual([
        { tag, retryCount: 0 },
        { tag, retryCount: 1 },
      ]);
      expect(await jobRows('probe.flaky', tag)).toEqual([{ state: 'completed', retry_count: 1 }]);
    });

    it('refuses to send a job nobody handles', async () => {
      await expect(queue.send('probe.unknown', { tag: 'x' })).rejects.toThrow(
        'Job probe.unknown has no registered handler',
      );
    });
  });
});
