import { PaymentsConfig } from '../payments/payments.config';
import { Setting } from './setting';
import { secretsKey } from './setting-shapes';

/** The key of the secrets tenants give the server (SecretsBox, src/common/crypto). */
export class SecretsConfig {
  /**
   * The key that seals each site's processor secrets at rest: 32 random bytes, base64 or hex
   * (`openssl rand -base64 32`). Without it, no site can be connected to Stripe.
   */
  @Setting(secretsKey(), {
    of: PaymentsConfig,
    when: (c: PaymentsConfig) => c.STRIPE_TEST_SECRET_KEY !== '',
    because: 'STRIPE_TEST_SECRET_KEY is set',
  })
  SECRETS_ENCRYPTION_KEY = '';
}
