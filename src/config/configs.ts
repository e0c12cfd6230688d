import { AccountConfig } from '../account/account.config';
import { ApiKeysConfig } from '../api-keys/api-keys.config';
import { BootstrapConfig } from '../bootstrap/bootstrap.config';
import { CatalogConfig } from '../catalog/catalog.config';
import { trimTrailing } from '../common/input/trim-trailing';
import { ContentConfig } from '../content/content.config';
import { BouncesConfig } from '../email/bounces/bounces.config';
import { EmailConfig } from '../email/email.config';
import { MediaConfig } from '../media/media.config';
import { NewsletterConfig } from '../newsletter/newsletter.config';
import { OrdersConfig } from '../orders/orders.config';
import { PaymentsConfig } from '../payments/payments.config';
import { SendersConfig } from '../senders/senders.config';
import { StartupError } from '../startup-errors';
import { UsersConfig } from '../users/users.config';
import { WebhooksConfig } from '../webhooks/webhooks.config';
import { DatabaseConfig } from './database.config';
import { HttpConfig } from './http.config';
import { JobsConfig } from './jobs.config';
import { LimitsConfig } from './limits.config';
import { LoggingConfig } from './logging.config';
import { MetricsConfig } from './metrics.config';
import { SecretsConfig } from './secrets.config';
import { missingSettings, readSettings, settingsOf } from './setting';
import { ServerConfig } from './server.config';

/**
 * Every settings class: one per module (in the module, `<module>.config.ts`) or per concern of
 * the foundation (here), each setting declared once with @Setting, whose kind (setting-kinds.ts)
 * reads the variable strictly and words its one-line error. ConfigModule provides each class, and
 * a file injects the ones it reads. `.env.example` documents every setting of every class; the
 * env-example spec keeps the two in step, and settings.spec.ts feeds every one a wrong value.
 */
export const CONFIG_CLASSES = {
  server: ServerConfig,
  database: DatabaseConfig,
  bootstrap: BootstrapConfig,
  logging: LoggingConfig,
  http: HttpConfig,
  metrics: MetricsConfig,
  limits: LimitsConfig,
  apiKeys: ApiKeysConfig,
  account: AccountConfig,
  jobs: JobsConfig,
  media: MediaConfig,
  content: ContentConfig,
  users: UsersConfig,
  newsletter: NewsletterConfig,
  catalog: CatalogConfig,
  orders: OrdersConfig,
  secrets: SecretsConfig,
  payments: PaymentsConfig,
  email: EmailConfig,
  bounces: BouncesConfig,
  webhooks: WebhooksConfig,
  senders: SendersConfig,
} as const;

/** The settings of every class, as loadConfigs read them (main, the CLI and the tests hold these). */
export type Configs = { [K in keyof typeof CONFIG_CLASSES]: InstanceType<(typeof CONFIG_CLASSES)[K]> };

/** The variables `types` read; one read by two of them is a mistake of the code (two meanings of one line of .env). */
export function settingKeys(types: Array<new () => object>): string[] {
  const keys = types.flatMap((type) => [...settingsOf(type).keys()]);
  const twice = keys.filter((key, i) => keys.indexOf(key) !== i);
  if (twice.length > 0) throw new Error(`${twice.join(', ')} declared by two settings classes (src/config/configs.ts)`);
  return keys;
}

/** Every variable the server reads. */
export const CONFIG_KEYS = settingKeys(Object.values(CONFIG_CLASSES));

/**
 * Reads every class's settings from `env` at once (defaults for what is unset or empty) and fails
 * at boot on bad values: one line per wrong setting of any class, naming it, its value and what
 * it accepts. The missing ones come after the wrong values, once every class is read: a setting
 * may be required by another class's (SECRETS_ENCRYPTION_KEY by STRIPE_TEST_SECRET_KEY).
 */
export function loadConfigs(env: Record<string, string | undefined> = process.env): Configs {
  const configs = Object.fromEntries(
    Object.entries(CONFIG_CLASSES).map(([name, type]) => [name, new type()]),
  ) as unknown as Configs;
  const all: object[] = Object.values(configs);
  const configOf = (type: new () => object) => {
    const found = all.find((config) => config.constructor === type);
    if (!found) throw new Error(`${type.name} is not in CONFIG_CLASSES (src/config/configs.ts)`);
    return found;
  };
  const wrong = [
    ...all.flatMap((config) => readSettings(config, env)),
    ...all.flatMap((config) => missingSettings(config, env, configOf)),
  ];
  if (wrong.length > 0) throw new StartupError(wrong.join('\n'));
  const server = configs.server;
  if (!server.PUBLIC_BASE_URL) server.PUBLIC_BASE_URL = `http://localhost:${server.PORT}`;
  server.PUBLIC_BASE_URL = trimTrailing(server.PUBLIC_BASE_URL, '/');
  return configs;
}
