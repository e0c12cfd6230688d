import { Injectable, Logger } from '@nestjs/common';
import Stripe from 'stripe';
import { DataSource, EntityManager } from 'typeorm';
import { SecretsBox } from '../common/crypto/secrets-box';
import { ConflictProblem } from '../common/errors/problems';
import { recordEvent } from '../common/outbox/record-event';
import { SiteContext } from '../common/tenancy/site-context';
import { ConnectStripeDto } from './dto/payment-account.dto';
import { PAYMENT_MODES, PaymentAccountEntity, PaymentMode } from './entities/payment-account.entity';
import { PAYMENTS_EVENTS } from './payments.events';
import { StripeClients } from './stripe/stripe-clients';

/** A site's Stripe in one mode: its client and what it was made with. */
export interface StripeOfSite {
  siteId: number;
  mode: PaymentMode;
  stripe: Stripe;
}

const FIELDS = {
  test: { key: 'testSecretKey', secret: 'testWebhookSecret', hint: 'testKeyHint' },
  live: { key: 'liveSecretKey', secret: 'liveWebhookSecret', hint: 'liveKeyHint' },
} as const;

/** What binds a sealed value to its row and field: copied into another site's row, it does not open. */
const context = (siteId: number, mode: PaymentMode, field: 'secret_key' | 'webhook_secret') =>
  `payment_accounts:${siteId}:${mode}:${field}`;

/** `rk_test_…Lw2x`: which key it is, for people; not enough of it to use. */
const hintOf = (key: string) => `${key.slice(0, key.indexOf('_', 3) + 1)}…${key.slice(-4)}`;

/**
 * A site's connection to Stripe (docs/payments.md, "Connecting a site"): its keys per mode,
 * write-only and sealed with the environment's key (SecretsBox), and the mode it charges in. A
 * site without one is `manual`, as before payments existed. The adapters (catalog sync, order
 * payments, subscription charges, events) get their client here.
 */
@Injectable()
export class PaymentAccountsService {
  private readonly logger = new Logger('Payments');

  constructor(
    private readonly dataSource: DataSource,
    private readonly box: SecretsBox,
    private readonly clients: StripeClients,
  ) {}

  get(site: SiteContext): Promise<PaymentAccountEntity | null> {
    return this.dataSource.getRepository(PaymentAccountEntity).findOne({ where: { siteId: site.id } });
  }

  /** Connects the site, or changes a mode's keys or the charging mode; records `payment_account.updated`. */
  connect(site: SiteContext, dto: ConnectStripeDto): Promise<PaymentAccountEntity> {
    if (!this.box.ready)
      throw new ConflictProblem(
        'secrets_key_missing',
        'The server has no SECRETS_ENCRYPTION_KEY to seal the keys with: its operator must set one (docs/payments.md)',
      );
    return this.dataSource.transaction(async (em) => {
      const repo = em.getRepository(PaymentAccountEntity);
      const row =
        (await repo.findOne({ where: { siteId: site.id }, lock: { mode: 'pessimistic_write' } })) ??
        repo.create({ siteId: site.id, mode: dto.mode ?? (dto.test === undefined && dto.live ? 'live' : 'test') });
      for (const mode of PAYMENT_MODES) {
        const given = dto[mode];
        if (given === undefined) continue;
        const f = FIELDS[mode];
        row[f.key] = given ? this.box.seal(given.secretKey, context(site.id, mode, 'secret_key')) : null;
        row[f.secret] = given ? this.box.seal(given.webhookSecret, context(site.id, mode, 'webhook_secret')) : null;
        row[f.hint] = given ? hintOf(given.secretKey) : null;
      }
      if (dto.mode) row.mode = dto.mode;
      if (!row[FIELDS[row.mode].key])
        throw new ConflictProblem(
          'processor_not_connected',
          `The site charges in ${row.mode} mode, so it needs that mode's keys (\`${row.mode}\`)`,
        );
      row.version = (row.version ?? 0) + 1;
      const saved = await repo.save(row);
      await this.record(em, site, saved);
      return saved;
    });
  }

  /** Back to `manual`: the keys are deleted; products keep their Stripe ids (a reconnection reuses them). */
  async disconnect(site: SiteContext): Promise<void> {
    await this.dataSource.transaction(async (em) => {
      const { affected } = await em.getRepository(PaymentAccountEntity).delete({ siteId: site.id });
      if (affected) await this.record(em, site, null);
    });
  }

  /** The modes the site has keys for (the catalog syncs to each). */
  async modesOf(siteId: number, em: EntityManager = this.dataSource.manager): Promise<PaymentMode[]> {
    const row = await em.getRepository(PaymentAccountEntity).findOne({ where: { siteId } });
    return row ? PAYMENT_MODES.filter((m) => row[FIELDS[m].key] !== null) : [];
  }

  /**
   * The site's Stripe client in `mode` (default: the mode it charges in); null when the site is
   * not connected in it (or the server has lost its SECRETS_ENCRYPTION_KEY).
   */
  async stripeOf(
    siteId: number,
    mode?: PaymentMode,
    em: EntityManager = this.dataSource.manager,
  ): Promise<StripeOfSite | null> {
    const row = await em.getRepository(PaymentAccountEntity).findOne({ where: { siteId } });
    const m = mode ?? row?.mode;
    if (!row || !m || !this.box.ready) return null;
    const key = this.opened(row[FIELDS[m].key], context(siteId, m, 'secret_key'));
    return key ? { siteId, mode: m, stripe: this.clients.client(key) } : null;
  }

  /** The webhook signing secrets of the site, per mode: an event is verified with its mode's. */
  async webhookSecrets(siteId: number): Promise<Array<{ mode: PaymentMode; secret: string }>> {
    const row = await this.dataSource.getRepository(PaymentAccountEntity).findOne({ where: { siteId } });
    if (!row || !this.box.ready) return [];
    return PAYMENT_MODES.flatMap((m) => {
      const secret = this.opened(row[FIELDS[m].secret], context(siteId, m, 'webhook_secret'));
      return secret ? [{ mode: m, secret }] : [];
    });
  }

  /**
   * A sealed value of this row, or null when it does not open: sealed for another site or field
   * (copied there), or under another SECRETS_ENCRYPTION_KEY. Such a connection counts as none.
   */
  private opened(sealed: string | null, where: string): string | null {
    if (!sealed) return null;
    try {
      return this.box.open(sealed, where);
    } catch {
      this.logger.warn({ where: where.replace(/:[a-z_]+$/, '') }, 'A stored Stripe secret does not open here; ignored');
      return null;
    }
  }

  private record(em: EntityManager, site: SiteContext, row: PaymentAccountEntity | null): Promise<void> {
    return recordEvent(em, site, PAYMENTS_EVENTS.accountUpdated, {
      processor: row ? 'stripe' : 'manual',
      mode: row?.mode ?? null,
      testConnected: !!row?.testSecretKey,
      liveConnected: !!row?.liveSecretKey,
    });
  }
}
