import { Injectable, OnModuleInit } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { QueueService } from '../common/queue/queue.service';
import { Clock } from '../common/scheduling/clock';
import { SiteEntity } from '../common/tenancy/entities/site.entity';
import { OrderEntity } from './entities/order.entity';
import { OrderFulfillmentService } from './order-fulfillment.service';
import { OrdersRepository } from './orders.repository';

/** One job per expiring order, queued in its create transaction to start at its `expiresAt`. */
export const ORDER_EXPIRY_JOB = 'orders.expire';
/** Every minute: the orders past their hold whose job was lost (or ran early). */
export const ORDER_EXPIRY_SWEEP_JOB = 'orders.expire-overdue';

/** Orders one transaction of the sweep cancels; the sweep goes on until a batch is short. */
const SWEEP_BATCH = 100;

/** The job's payload: ids, never the order. */
export interface OrderExpiryJobData {
  siteId: number;
  orderId: number;
}

/**
 * Cancels unpaid orders whose stock hold ended (docs/orders.md, "Reservations"). The order's job
 * does it at `expiresAt`; the sweep catches any whose job was lost. Both take the order's row
 * lock and check again, under it, that it is still unpaid, open and expired: an order is
 * canceled, and its stock given back, once, however many instances run either at the same time.
 */
@Injectable()
export class OrderExpiryJob implements OnModuleInit {
  constructor(
    private readonly dataSource: DataSource,
    private readonly queue: QueueService,
    private readonly fulfillment: OrderFulfillmentService,
    private readonly repository: OrdersRepository,
    private readonly clock: Clock,
  ) {}

  onModuleInit(): void {
    this.queue.register<OrderExpiryJobData>(ORDER_EXPIRY_JOB, async (data) => void (await this.run(data)));
    this.queue.register(ORDER_EXPIRY_SWEEP_JOB, async () => void (await this.sweep()), {
      cron: '* * * * *',
      retryLimit: 0,
    });
  }

  /**
   * One order's expiry: waits for its row lock (a payment or a cancel in progress), then cancels
   * it if it is still due. Not yet due (the queue's clock ahead of the app's): nothing, and the
   * sweep takes it when it is. Answers whether it canceled the order.
   */
  run({ siteId, orderId }: OrderExpiryJobData): Promise<boolean> {
    return this.dataSource.transaction(async (em) => {
      const order = await em.findOne(OrderEntity, {
        where: { id: orderId, siteId },
        lock: { mode: 'pessimistic_write' },
      });
      return order ? this.expireLocked(em, order) : false;
    });
  }

  /**
   * Cancels every order past its hold, a batch a transaction, claimed with SKIP LOCKED: instances
   * sweeping at once share the orders, and one a job or a payment holds is left to it. Answers how
   * many it canceled.
   */
  async sweep(): Promise<number> {
    let total = 0;
    for (;;) {
      const [claimed, canceled] = await this.dataSource.transaction(async (em) => {
        const due = await this.repository.lockExpired(em, this.clock.now(), SWEEP_BATCH);
        let n = 0;
        for (const order of due) if (await this.expireLocked(em, order)) n += 1;
        return [due.length, n];
      });
      total += canceled;
      if (claimed < SWEEP_BATCH || canceled === 0) return total;
    }
  }

  /**
   * A locked order's expiry. Its site is read on the transaction's connection: a second
   * connection per held order would exhaust the pool when many expire at once. Orders outlive
   * their site: a site that is gone has no stock to give back and no one to tell, so its order
   * only stops expiring.
   */
  private async expireLocked(em: EntityManager, order: OrderEntity): Promise<boolean> {
    const site = await em.findOne(SiteEntity, {
      where: { id: order.siteId },
      select: { id: true, name: true, accountId: true },
    });
    if (site) return this.fulfillment.expire(em, site, order);
    await em.update(OrderEntity, { id: order.id }, { expiresAt: null });
    return true;
  }
}
