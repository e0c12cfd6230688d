import { Setting } from './setting';
import { COUNT_MAX, int } from './setting-kinds';

/** The request rate limits and the budgets of expensive work (docs/foundation.md, "Fair share"). */
export class LimitsConfig {
  @Setting(int(1000, 86_400_000)) RATE_LIMIT_TTL_MS = 60_000;
  @Setting(int(1, COUNT_MAX)) RATE_LIMIT_PUBLIC_MAX = 120;
  /** Per API key, every route, per RATE_LIMIT_TTL_MS; 0: not limited (docs/foundation.md, "Fair share"). */
  @Setting(int(0, COUNT_MAX)) RATE_LIMIT_KEY_MAX = 10_000;
  /** Per site-user session, every route, per RATE_LIMIT_TTL_MS; 0: not limited. */
  @Setting(int(0, COUNT_MAX)) RATE_LIMIT_SESSION_MAX = 1200;
  // Budgets per account of the routes that declare a cost (src/common/rate-limit/route-costs.ts):
  // requests per RATE_LIMIT_TTL_MS (every instance together) and requests in flight at once
  // (per instance); 0: that budget is off.
  @Setting(int(0, COUNT_MAX)) RATE_LIMIT_RENDER_MAX = 600;
  @Setting(int(0, 1000)) RATE_LIMIT_RENDER_CONCURRENCY = 4;
  @Setting(int(0, COUNT_MAX)) RATE_LIMIT_OUTBOUND_MAX = 120;
  @Setting(int(0, 1000)) RATE_LIMIT_OUTBOUND_CONCURRENCY = 4;
  @Setting(int(0, COUNT_MAX)) RATE_LIMIT_IMPORT_MAX = 120;
  @Setting(int(0, 1000)) RATE_LIMIT_IMPORT_CONCURRENCY = 2;
  @Setting(int(0, COUNT_MAX)) RATE_LIMIT_UPLOAD_MAX = 600;
  @Setting(int(0, 1000)) RATE_LIMIT_UPLOAD_CONCURRENCY = 8;
}
