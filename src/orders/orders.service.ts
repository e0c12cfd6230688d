import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { SitesService } from '../account/sites.service';
import { CatalogService, PricedLine } from '../catalog/catalog.service';
import { ConflictProblem, NotFoundProblem, Problem, withStatus } from '../common/errors/problems';
import { recordEvent } from '../common/outbox/record-event';
import { QueueService } from '../common/queue/queue.service';
import { Clock } from '../common/scheduling/clock';
import { OrderHolds, orderHolds } from '../common/tenancy/site-settings';
import { Page } from '../common/pagination/page';
import { findInSiteOrFail, SiteContext } from '../common/tenancy/site-context';
import { EmailService } from '../email/email.service';
import { UsersService } from '../users/users.service';
import type { Principal } from '../common/auth/principal';
import { CreateOrderDto, OrderQueryDto, UpdatePaymentDto } from './dto/order.dto';
import { OrderEntity } from './entities/order.entity';
import { Buyer, customerOf } from './order-customer';
import { confirmationData } from './order-mail';
import { ORDER_EXPIRY_JOB, OrderExpiryJobData } from './order-expiry.job';
import { cooldownStart, expiryOf, holdRefusal, StockItem, stockKey, wantedItems } from './order-holds';
import { OrderPaymentRecords, ProcessorPayment } from './order-payment-records';
import { priceOrder } from './order-pricing';
import { ORDERS_EVENTS } from './orders.events';
import { OrderHoldsRepository } from './order-holds.repository';
import { OrdersRepository, OrderView } from './orders.repository';

/** An order with its lines and shipments: what a get answers. */
export type { OrderView } from './orders.repository';
export type { OrderEntity } from './entities/order.entity';
export type { ProcessorPayment } from './order-payment-records';
export type { Buyer } from './order-customer';

/**
 * Orders (docs/orders.md): placed from the catalog's prices and stock, which an unpaid order holds
 * until `expiresAt` (OrderExpiryJob), then paid; fulfilled and canceled by OrderFulfillmentService.
 * A site's backend (a key) places and reads any order of the site; a signed-in site user (a
 * `Buyer`) places their own, under their address, and reads only theirs.
 */
@Injectable()
export class OrdersService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly repository: OrdersRepository,
    private readonly holdsRepository: OrderHoldsRepository,
    private readonly catalog: CatalogService,
    private readonly email: EmailService,
    private readonly sites: SitesService,
    private readonly users: UsersService,
    private readonly queue: QueueService,
    private readonly clock: Clock,
    private readonly payments: OrderPaymentRecords,
  ) {}

  /** The caller as a buyer: a site user's session; a key is no buyer (it acts for the site). */
  private async buyerOf(caller: Principal): Promise<Buyer | undefined> {
    if (caller.kind !== 'user') return undefined;
    const user = await this.users.me(caller);
    return { userId: user.id, email: user.email, name: user.name, verified: user.emailVerifiedAt !== null };
  }

  /** A site user's session lists only their own orders. */
  list(site: SiteContext, query: OrderQueryDto, caller: Principal): Promise<Page<OrderEntity>> {
    return this.repository.list(site, query, caller.kind === 'user' ? caller.userId : undefined);
  }

  /** Another site's order, or for a site user another person's, is a 404 like a missing one. */
  async get(site: SiteContext, id: number, caller: Principal): Promise<OrderView> {
    const order = await this.repository.find(site, id);
    if (!order || (caller.kind === 'user' && order.userId !== caller.userId)) throw new NotFoundProblem('Order');
    const [lines, shipments] = await Promise.all([
      this.repository.linesOf(order.id),
      this.repository.shipmentsOf(order.id),
    ]);
    return { order, lines, shipments };
  }

  /**
   * Places an order, in one transaction: prices from the catalog (a 400 names a line that is
   * not for sale or in another currency), tax from the site's rates, a site user's cap of pending
   * orders (409 `too_many_pending_orders`) and of held units (checkHolds), the stock taken (409 `out_of_stock` naming the item),
   * the site's next number, the order and its line snapshots with the end of its hold
   * (`expiresAt`) and the job that expires it, the confirmation mail and `order.created`.
   * Anything that fails leaves nothing behind.
   */
  async create(site: SiteContext, dto: CreateOrderDto, caller: Principal): Promise<OrderView> {
    const buyer = await this.buyerOf(caller);
    const customer = customerOf(dto, buyer);
    return this.dataSource.transaction(async (em) => {
      const catalogLines = await this.catalog.priceLines(
        em,
        site,
        dto.lines.map((l) => ({ productId: l.productId, variantId: l.variantId ?? null, quantity: l.quantity })),
      );
      const { settings } = await this.sites.profileOf(site.id, em);
      const { lines, totals } = priceOrder(catalogLines, settings.orders);
      const holds = orderHolds(settings.orders);
      const now = this.clock.now();
      // Locks from here to the commit: the buyer's, the stock (in product order), the site's counter.
      if (buyer) {
        const pending = await this.holdsRepository.lockAndCountPending(em, site.id, buyer.userId, now);
        if (pending >= holds.maxPendingPerUser)
          throw new ConflictProblem(
            'too_many_pending_orders',
            `You have ${pending} unpaid orders; pay or cancel one before placing another (at most ${holds.maxPendingPerUser})`,
          );
        await this.checkHolds(em, site, buyer.userId, holds, catalogLines, now);
      }
      await this.catalog.takeStock(em, site, catalogLines);
      const view = await this.repository.insertOrder(
        em,
        {
          siteId: site.id,
          accountId: site.accountId,
          userId: buyer?.userId ?? null,
          ...totals,
          ...customer,
          shippingAddress: dto.shippingAddress ? { ...dto.shippingAddress } : null,
          metadata: dto.metadata ?? {},
          expiresAt: expiryOf(holds, buyer ? 'session' : 'key', now),
        },
        lines.map((l) => ({
          productId: l.productId,
          variantId: l.variantId,
          name: l.name,
          sku: l.sku,
          unitAmount: l.unitAmount,
          quantity: l.quantity,
          taxCode: l.taxCode,
          taxBehavior: l.taxBehavior,
          taxRate: l.taxRate,
          subtotalAmount: l.subtotalAmount,
          taxAmount: l.taxAmount,
          totalAmount: l.totalAmount,
          recurringInterval: l.recurring?.interval ?? null,
          recurringIntervalCount: l.recurring?.intervalCount ?? null,
        })),
      );
      const { order } = view;
      if (order.expiresAt)
        await this.queue.send<OrderExpiryJobData>(
          ORDER_EXPIRY_JOB,
          { siteId: site.id, orderId: order.id },
          { startAfter: order.expiresAt, em },
        );
      // Mail to an address nobody has proved (an operator's correction of a user's address)
      // carries no text the user chose: no name.
      const named = order.customerName && (!buyer || buyer.verified) ? order.customerName : null;
      await this.email.send(em, site, {
        to: { email: order.customerEmail!, ...(named ? { name: named } : {}) },
        templateType: 'orders.confirmation',
        data: confirmationData(order, view.lines, named),
      });
      await recordEvent(em, site, ORDERS_EVENTS.created, {
        id: order.id,
        number: order.number,
        currency: order.currency,
        totalAmount: order.totalAmount,
        paymentStatus: order.paymentStatus,
        fulfillmentStatus: order.fulfillmentStatus,
      });
      return view;
    });
  }

  /**
   * A site user's hold limits, under their lock (docs/orders.md, "Reservations"): of the items
   * whose stock is counted, what the order asks with what they already hold, per item and in all
   * (409 `hold_limit_exceeded`), and no item whose hold of theirs expired within the cool-down
   * (409 `hold_cooldown`, with Retry-After). The lock makes concurrent orders of one user take
   * turns here, so together they cannot pass a limit.
   */
  private async checkHolds(
    em: EntityManager,
    site: SiteContext,
    userId: number,
    holds: OrderHolds,
    lines: PricedLine[],
    now: Date,
  ): Promise<void> {
    const held = await this.holdsRepository.heldBy(em, site.id, userId, now, cooldownStart(holds, now));
    const wanted = wantedItems(lines);
    const items = new Map<string, StockItem>([...held, ...wanted].map((i) => [stockKey(i), i]));
    const counted = new Set((await this.catalog.countedStock(em, site, [...items.values()])).map(stockKey));
    const refusal = holdRefusal(
      holds,
      held.filter((h) => counted.has(stockKey(h))),
      wanted.filter((w) => counted.has(stockKey(w))),
      now,
    );
    if (refusal?.code === 'hold_limit_exceeded') throw new ConflictProblem('hold_limit_exceeded', refusal.detail);
    if (refusal?.code === 'hold_cooldown')
      throw new Problem(
        withStatus(409, 'hold_cooldown', {
          title: 'Conflict',
          detail: refusal.detail,
          headers: { 'Retry-After': String(refusal.retryAfterSeconds) },
        }),
      );
  }

  /**
   * PATCH …/payment: records the payment (`pending → paid → refunded`; any other move is a 409 and
   * changes nothing). An order past its hold is a 409 `order_expired`, whether or not the expiry has
   * canceled it yet: its stock is, or is about to be, someone else's. Paid: no expiry any more,
   * `order.paid`, then one `order.subscription_requested` per recurring line. An order paid through
   * the site's processor is a 409 `processor_managed`: Stripe's events and the refund route move it.
   */
  updatePayment(site: SiteContext, id: number, dto: UpdatePaymentDto): Promise<OrderView> {
    return this.dataSource.transaction(async (em) => {
      const order = await findInSiteOrFail(em, OrderEntity, site, id, 'Order', { lock: true });
      if (order.paymentProcessor !== 'manual')
        throw new ConflictProblem(
          'processor_managed',
          `Order ${order.number} is paid through ${order.paymentProcessor}: its events record the payment, ` +
            'and POST …/refund refunds it',
        );
      return this.payments.move(em, site, order, dto.paymentStatus, dto.processorPaymentId);
    });
  }

  /**
   * For a payment processor's adapter (docs/payments.md, "Orders"), in its transaction. The
   * order of the site, locked (null: none); with `processorPaymentId`, the order that payment is
   * for.
   */
  lockForPayment(
    em: EntityManager,
    site: SiteContext,
    ref: { id: number } | { processorPaymentId: string },
  ): Promise<OrderEntity | null> {
    return 'id' in ref
      ? this.payments.lock(em, site, ref.id)
      : this.payments.lockByProcessorPayment(em, site, ref.processorPaymentId);
  }

  /** Why the order cannot be paid now (the 409 to answer), or null. */
  unpayable(order: OrderEntity): ConflictProblem | null {
    return this.payments.unpayable(order);
  }

  /** The 409 `transition_forbidden` of a payment move the order's state refuses (`why`: what it is now). */
  transitionRefused(why: string): ConflictProblem {
    return new ConflictProblem('transition_forbidden', why);
  }

  /**
   * A processor's payment or refund of a locked order, through the same code path as PATCH
   * …/payment (its rules, 409s and events), recording who collected it.
   */
  recordProcessorPayment(
    em: EntityManager,
    site: SiteContext,
    order: OrderEntity,
    to: 'paid' | 'refunded',
    by: ProcessorPayment,
  ): Promise<OrderView> {
    return this.payments.move(em, site, order, to, by.processorPaymentId, by);
  }

  /** Records the processor's payment made for a locked, payable order (still pending). */
  attachProcessorPayment(em: EntityManager, order: OrderEntity, by: ProcessorPayment): Promise<OrderEntity> {
    return this.payments.attach(em, order, by);
  }

  /** A processor's payment that could not be sold (a canceled or expired order) was given back: OrderPaymentRecords.refundUnsold. */
  recordUnsoldRefund(em: EntityManager, site: SiteContext, order: OrderEntity, by: ProcessorPayment): Promise<boolean> {
    return this.payments.refundUnsold(em, site, order, by);
  }

  /** A locked order with its lines and shipments. */
  viewOf(em: EntityManager, order: OrderEntity): Promise<OrderView> {
    return this.payments.view(em, order);
  }
}
