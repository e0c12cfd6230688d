import { Setting } from '../config/setting';
import { int, YEAR_SECONDS } from '../config/setting-kinds';

/** Accounts (docs/foundation.md, "Account deletion"). */
export class AccountConfig {
  @Setting(int(0, YEAR_SECONDS)) ACCOUNT_DELETION_GRACE_SECONDS = 7 * 24 * 3600;
}
