import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { UnauthorizedProblem } from '../common/errors/problems';
import { findInSiteOrFail, SiteContext } from '../common/tenancy/site-context';
import { OrdersConfig } from './orders.config';
import { FulfillmentNotificationDto } from './dto/order.dto';
import { NotificationOutcome } from './entities/fulfillment-notification.entity';
import { FulfillmentSecretEntity } from './entities/fulfillment-secret.entity';
import { OrderEntity } from './entities/order.entity';
import { newFulfillmentSecret, verifySignature } from './fulfillment-signature';
import { FulfillmentNotificationsRepository } from './fulfillment-notifications.repository';
import { OrderFulfillmentService } from './order-fulfillment.service';

const REFUSALS = {
  malformed: 'The x-sitebase-signature header is missing or malformed (t=<unix seconds>,v1=<hex HMAC-SHA256>)',
  stale: 'The signature timestamp is more than 5 minutes away from now',
  mismatch: "The signature does not match the body with the site's fulfillment secret",
} as const;

/**
 * A fulfillment provider's signed notifications (docs/orders.md): verified against the site's
 * secret (and the previous one during a rotation's grace period), applied once per notification
 * id through OrderFulfillmentService.changeFulfillment, as the PATCH is.
 */
@Injectable()
export class FulfillmentNotificationsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly repository: FulfillmentNotificationsRepository,
    private readonly fulfillment: OrderFulfillmentService,
    private readonly config: OrdersConfig,
  ) {}

  /**
   * 401 `invalid_signature` unless the header signs these exact bytes with a secret of the site
   * at a time within 5 minutes of now. Then, in one transaction: the order (404 if not the
   * site's), the claim of the notification's id (a replay answers what the first did and
   * changes nothing), the change, and its outcome kept for replays.
   */
  async receive(
    site: SiteContext,
    raw: Buffer,
    signature: string | undefined,
    dto: FulfillmentNotificationDto,
  ): Promise<{ outcome: NotificationOutcome; replayed: boolean }> {
    const check = verifySignature(signature, raw, await this.secretsOf(site), Math.floor(Date.now() / 1000));
    if (check !== 'ok') throw new UnauthorizedProblem('invalid_signature', REFUSALS[check]);
    return this.dataSource.transaction(async (em) => {
      // The order first (locked): an unknown one is a 404, and two deliveries of one notification wait here.
      await findInSiteOrFail(em, OrderEntity, site, dto.orderId, 'Order', { lock: true });
      if (!(await this.repository.claimNotification(em, site.id, dto.id, dto.orderId))) {
        const outcome = await this.repository.notificationOutcome(em, site.id, dto.id);
        return { outcome: outcome!, replayed: true };
      }
      const { order, shipment } = await this.fulfillment.changeFulfillment(em, site, dto.orderId, dto, dto.id);
      const outcome: NotificationOutcome = {
        id: dto.id,
        orderId: order.id,
        fulfillmentStatus: order.fulfillmentStatus,
        shipmentId: shipment?.id ?? null,
        receivedAt: new Date().toISOString(),
      };
      await this.repository.recordOutcome(em, site.id, outcome);
      return { outcome, replayed: false };
    });
  }

  /**
   * A new secret for the site (the first one when it has none), answered once. The previous one
   * keeps verifying for FULFILLMENT_SECRET_GRACE_SECONDS, so the provider can switch without a
   * refused notification.
   */
  rotateSecret(site: SiteContext): Promise<FulfillmentSecretEntity> {
    return this.dataSource.transaction(async (em) => {
      await this.repository.rotateSecret(
        em,
        site.id,
        newFulfillmentSecret(),
        this.config.FULFILLMENT_SECRET_GRACE_SECONDS,
      );
      return em.findOneOrFail(FulfillmentSecretEntity, { where: { siteId: site.id } });
    });
  }

  /** The secrets that verify now: the current one, and the previous one during its grace period. */
  private async secretsOf(site: SiteContext): Promise<string[]> {
    const row = await this.dataSource.getRepository(FulfillmentSecretEntity).findOne({
      where: { siteId: site.id },
      select: { secret: true, previousSecret: true, previousSecretExpiresAt: true },
    });
    if (!row) return [];
    return row.previousSecret && row.previousSecretExpiresAt && row.previousSecretExpiresAt > new Date()
      ? [row.secret, row.previousSecret]
      : [row.secret];
  }
}
