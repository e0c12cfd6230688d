import { Setting } from '../config/setting';
import { int, secret, webUrl } from '../config/setting-kinds';
import { stripeKey, stripeWebhookSecret } from '../config/setting-shapes';

/** Payments (docs/payments.md): how Stripe is reached, and the demo site's test-mode keys. */
export class PaymentsConfig {
  /** Where the Stripe API is: https://api.stripe.com, or an egress proxy or a stand-in for tests. */
  @Setting(webUrl('https://api.stripe.com')) STRIPE_API_BASE = 'https://api.stripe.com';
  /** One Stripe request's time limit (ms), and the retries the official client makes of a failed one. */
  @Setting(int(1000, 120_000)) STRIPE_TIMEOUT_MS = 20_000;
  @Setting(int(0, 5)) STRIPE_MAX_NETWORK_RETRIES = 2;
  /** How far a Stripe event's signature timestamp may be from now (seconds). */
  @Setting(int(10, 3600)) STRIPE_WEBHOOK_TOLERANCE_SECONDS = 300;
  /**
   * Days a received Stripe event's id is kept (the redelivery guard, docs/payments.md); more than
   * the 30 days Stripe keeps an event it can send again.
   */
  @Setting(int(31, 3650)) PAYMENT_EVENT_RETENTION_DAYS = 90;
  /**
   * The demo site (BOOTSTRAP_SITE) is connected in test mode with these at first start
   * (docs/payments.md); they need SECRETS_ENCRYPTION_KEY (SecretsConfig) to be sealed.
   */
  @Setting(secret(stripeKey('test'))) STRIPE_TEST_SECRET_KEY = '';
  @Setting(secret(stripeWebhookSecret()), {
    when: (c: PaymentsConfig) => c.STRIPE_TEST_SECRET_KEY !== '',
    because: 'STRIPE_TEST_SECRET_KEY is set',
  })
  STRIPE_TEST_WEBHOOK_SECRET = '';
}
