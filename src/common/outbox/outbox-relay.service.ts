import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { AppConfig } from '../../config/app-config';
import { OutboxEventEntity } from './outbox-event.entity';

export interface OutboxEvent {
  id: number;
  accountId: number;
  siteId: number | null;
  name: string;
  payload: Record<string, unknown>;
  createdAt: Date;
}

/** A subscriber runs inside the relay's transaction: enqueue jobs with `em`, never call out. */
export type OutboxSubscriber = (em: EntityManager, event: OutboxEvent) => Promise<void>;

const BATCH = 200;

/**
 * Publishes outbox events to in-process subscribers (webhook fan-out, mail triggers), at least
 * once. Rows are claimed with FOR UPDATE SKIP LOCKED, so several instances share the work.
 */
@Injectable()
export class OutboxRelay implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Outbox');
  private readonly subscribers: Array<{ pattern: RegExp; fn: OutboxSubscriber }> = [];
  private timer?: NodeJS.Timeout;
  private running?: Promise<number>;
  private stopped = false;

  constructor(private readonly dataSource: DataSource, private readonly config: AppConfig) {}

  /** `pattern` is an event name, or a prefix ending in `*` (`content.*`), or `*`. */
  subscribe(pattern: string, fn: OutboxSubscriber): void {
    const re = new RegExp(`^${pattern.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
    this.subscribers.push({ pattern: re, fn });
  }

  onApplicationBootstrap(): void {
    if (!this.config.JOBS_ENABLED) return;
    const tick = async () => {
      if (this.stopped) return;
      try {
        // Drain quickly when there is a backlog, otherwise wait for the next poll.
        let n: number;
        do {
          this.running = this.dispatchBatch();
          n = await this.running;
        } while (n === BATCH && !this.stopped);
      } catch (err) {
        this.logger.error({ err }, 'Outbox dispatch failed; will retry');
      }
      if (!this.stopped) this.timer = setTimeout(tick, this.config.OUTBOX_POLL_MS);
    };
    this.timer = setTimeout(tick, this.config.OUTBOX_POLL_MS);
  }

  /** Dispatches one batch; returns how many events it handled. */
  dispatchBatch(): Promise<number> {
    return this.dataSource.transaction(async (em) => {
      const rows = await em
        .createQueryBuilder(OutboxEventEntity, 'e')
        .where('e.dispatched_at IS NULL')
        .orderBy('e.id', 'ASC')
        .limit(BATCH)
        .setLock('pessimistic_write')
        .setOnLocked('skip_locked')
        .getMany();
      if (rows.length === 0) return 0;
      for (const row of rows) {
        for (const s of this.subscribers) if (s.pattern.test(row.name)) await s.fn(em, row);
      }
      await em.query('UPDATE outbox_events SET dispatched_at = now() WHERE id = ANY($1)', [rows.map((r) => r.id)]);
      return rows.length;
    });
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
  }
}
