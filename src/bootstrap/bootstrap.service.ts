import { LoggingConfig } from '../config/logging.config';
import { logsJson, say } from '../common/logging/say';
import { advisoryXactLock } from '../database/sql';
import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AccountsService } from '../account/accounts.service';
import { SitesService } from '../account/sites.service';
import { PaymentsConfig } from '../payments/payments.config';
import { BootstrapConfig } from './bootstrap.config';
import { ApiKeysService } from '../api-keys/api-keys.service';
import { KeyPrincipal } from '../common/auth/principal';
import { SiteContext } from '../common/tenancy/site-context';
import { PaymentAccountsService } from '../payments/payment-accounts.service';
import { DemoSeedService } from './demo-seed.service';

/** Any constant works; it only keeps two instances from bootstrapping the same empty database. */
const BOOTSTRAP_LOCK = 7_312_001;

/**
 * First start on an empty database: an account, the site `demo` and an API key —
 * BOOTSTRAP_API_KEY when set, otherwise a new key printed once — then the demo's data
 * (DemoSeedService), only on the site it has just made.
 */
@Injectable()
export class BootstrapService implements OnApplicationBootstrap {
  private readonly logger = new Logger('Bootstrap');

  constructor(
    private readonly config: BootstrapConfig,
    private readonly paymentsConfig: PaymentsConfig,
    private readonly dataSource: DataSource,
    private readonly accounts: AccountsService,
    private readonly sites: SitesService,
    private readonly keys: ApiKeysService,
    private readonly demo: DemoSeedService,
    private readonly payments: PaymentAccountsService,
    private readonly loggingConfig: LoggingConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.BOOTSTRAP_ENABLED) await this.run();
  }

  /** Returns the plaintext key when it created one. */
  async run(): Promise<string | null> {
    const made = await this.dataSource.transaction(async (em) => {
      await advisoryXactLock(em, BOOTSTRAP_LOCK);
      if (!(await this.accounts.isEmpty(em))) return null;
      const account = await this.accounts.createAccount(em, 'Default account');
      const site = await this.sites.createInAccount(em, account.id, {
        name: this.config.BOOTSTRAP_SITE,
        title: 'Demo site',
      });
      const { entity: key, plaintext } = await this.keys.createInAccount(em, account.id, {
        name: 'Bootstrap key',
        siteIds: null,
        expiresAt: null,
        plaintext: this.config.BOOTSTRAP_API_KEY,
      });
      const principal: KeyPrincipal = {
        kind: 'key',
        keyId: key.id,
        accountId: account.id,
        siteIds: null,
        permissions: null,
        accountDeletionScheduled: false,
        secret: 'current',
        expiresAt: null,
      };
      return {
        site: { id: site.id, name: site.name, accountId: account.id } satisfies SiteContext,
        principal,
        plaintext,
      };
    });
    if (!made) {
      await this.sayKeyIgnored();
      return null;
    }
    const { site, principal, plaintext } = made;
    await this.connectStripe(site);
    try {
      await this.demo.seed(site, principal);
    } catch (err) {
      // The account, site and key stand; the API works without the demo's data.
      this.logger.error({ err }, 'The demo data could not be made');
    }
    if (this.config.BOOTSTRAP_API_KEY) {
      this.logger.log(
        `Created account ${site.accountId}, site "${site.name}", its demo data and the API key from BOOTSTRAP_API_KEY`,
      );
    } else {
      // Said once, whatever LOG_LEVEL, so an operator sees it at first start: set apart at a
      // terminal; where the logs are JSON, a JSON line with the key in `apiKey`.
      const text = `Sitebase is ready. Site "${site.name}" was created with this API key (shown once, keep it)`;
      if (logsJson(this.loggingConfig.LOG_FORMAT)) say(text, { site: site.name, apiKey: plaintext });
      else say(`\n  ${text}:\n\n    ${plaintext}\n`);
    }
    return plaintext;
  }

  /**
   * BOOTSTRAP_API_KEY makes the first start's key only: on a database that already has an
   * account it is ignored, and a key that is not a live key there would meet 401 with nothing
   * said. (The same key set again on every start, the one the first start made, says nothing.)
   */
  private async sayKeyIgnored(): Promise<void> {
    const key = this.config.BOOTSTRAP_API_KEY;
    if (!key || (await this.keys.isLive(key))) return;
    this.logger.warn(
      `BOOTSTRAP_API_KEY was ignored: the database already has an account, and the key is made only by the first start on an empty database. Make a key with: npm run key -- create --site ${this.config.BOOTSTRAP_SITE}`,
    );
  }

  /**
   * With STRIPE_TEST_SECRET_KEY, the demo site takes payments in Stripe's test mode from the
   * start (its products sync once seeded); without it the site is `manual` (docs/payments.md).
   */
  private async connectStripe(site: SiteContext): Promise<void> {
    const secretKey = this.paymentsConfig.STRIPE_TEST_SECRET_KEY;
    if (!secretKey) return;
    try {
      await this.payments.connect(site, {
        mode: 'test',
        test: { secretKey, webhookSecret: this.paymentsConfig.STRIPE_TEST_WEBHOOK_SECRET },
      });
      this.logger.log(`Site "${site.name}" takes payments in Stripe's test mode (STRIPE_TEST_SECRET_KEY)`);
    } catch (err) {
      this.logger.error({ err }, 'The demo site could not be connected to Stripe; it stays manual');
    }
  }
}
