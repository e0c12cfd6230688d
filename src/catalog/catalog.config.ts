import { Setting } from '../config/setting';
import { int } from '../config/setting-kinds';

/** Catalog (docs/catalog.md). */
export class CatalogConfig {
  /** How long an instance serves anonymous product and category reads from memory; 0 turns it off. */
  @Setting(int(0, 3_600_000)) CATALOG_CACHE_TTL_MS = 5000;
}
