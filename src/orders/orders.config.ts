import { Setting } from '../config/setting';
import { int, YEAR_SECONDS } from '../config/setting-kinds';

/** Orders (docs/orders.md). */
export class OrdersConfig {
  /** After a rotation of a site's fulfillment secret, the previous one keeps verifying notifications this long. */
  @Setting(int(0, YEAR_SECONDS)) FULFILLMENT_SECRET_GRACE_SECONDS = 24 * 3600;
}
