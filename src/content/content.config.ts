import { Setting } from '../config/setting';
import { int } from '../config/setting-kinds';

/** Content (docs/content.md). */
export class ContentConfig {
  /** How long an instance serves anonymous content reads from memory; 0 turns the cache off. */
  @Setting(int(0, 3_600_000)) CONTENT_CACHE_TTL_MS = 5000;
}
