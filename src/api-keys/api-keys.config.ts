import { Setting } from '../config/setting';
import { COUNT_MAX, int } from '../config/setting-kinds';

/** API keys: how long a verified one is trusted from memory, and a publishable key's rate. */
export class ApiKeysConfig {
  /** A publishable key's requests a minute, every holder together, unless the key sets its own. */
  @Setting(int(1, COUNT_MAX)) PUBLISHABLE_KEY_RATE_PER_MINUTE = 6000;
  /** How long a verified key is trusted from memory; changes reach every instance at commit. 0: off. */
  @Setting(int(0, 86_400_000)) API_KEY_CACHE_TTL_MS = 60_000;
}
