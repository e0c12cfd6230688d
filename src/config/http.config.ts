import { Setting } from './setting';
import { bool, DAY_SECONDS, int, size, TrustProxy, trustProxy } from './setting-kinds';

/** How the HTTP app reads requests and answers them, for every route alike. */
export class HttpConfig {
  /**
   * max-age of anonymous reads of published data (`Cache-Control: public`); 0: `no-cache`, so a
   * browser or CDN keeps them but revalidates each time (a 304 when nothing changed).
   */
  @Setting(int(0, 86_400)) PUBLIC_CACHE_MAX_AGE_SECONDS = 0;
  /** The largest JSON or form body read (bytes; bigger ones are a 413). */
  @Setting(size('1kb', '100mb')) BODY_LIMIT = 1024 * 1024;
  /** Express's `trust proxy`, parsed: what app.set('trust proxy') is given. */
  @Setting(trustProxy()) TRUST_PROXY: TrustProxy = false;
  @Setting(bool()) DOCS_ENABLED = true;
  /**
   * The fenced fast paths of src/common/internals (the params/query memo); false: the plain path
   * everywhere, to rule them out when something looks wrong (docs/performance.md, "Fenced fast paths").
   */
  @Setting(bool()) FAST_PATHS = true;
  /** How long a successful answer is kept per Idempotency-Key (docs/foundation.md). */
  @Setting(int(60, 30 * DAY_SECONDS)) IDEMPOTENCY_TTL_SECONDS = 24 * 3600;
}
