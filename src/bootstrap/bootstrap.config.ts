import { Setting } from '../config/setting';
import { bool, secret } from '../config/setting-kinds';
import { apiKey, siteName } from '../config/setting-shapes';

/** The demo account, site and key made at first start (docs/foundation.md, "Bootstrap"). */
export class BootstrapConfig {
  @Setting(bool()) BOOTSTRAP_ENABLED = true;
  @Setting(secret(apiKey())) BOOTSTRAP_API_KEY?: string;
  @Setting(siteName()) BOOTSTRAP_SITE = 'demo';
}
