import { Setting } from '../config/setting';
import { int, YEAR_SECONDS } from '../config/setting-kinds';

/** Site users (docs/users.md): one-time codes, sessions, erasure. */
export class UsersConfig {
  /** How long a one-time sign-in code works. */
  @Setting(int(60, 86_400)) USER_OTP_TTL_SECONDS = 600;
  /** Wrong tries a code allows; the next one fails even with the right code. */
  @Setting(int(1, 20)) USER_OTP_MAX_ATTEMPTS = 5;
  /** A new code for the same address waits this long after the last one. */
  @Setting(int(0, 3600)) USER_OTP_RESEND_SECONDS = 60;
  /**
   * Codes one address may be sent in an hour, sign-in and email change together (shared by
   * instances); also the email changes one user may ask for in an hour.
   */
  @Setting(int(1, 1_000_000)) USER_OTP_EMAIL_HOURLY_LIMIT = 10;
  /** Codes one address may be sent in a day; a verified owner is told once when it is reached. */
  @Setting(int(1, 1_000_000)) USER_OTP_EMAIL_DAILY_LIMIT = 20;
  /** Code requests and sign-in tries one client IP may make in an hour (shared by instances). */
  @Setting(int(1, 1_000_000)) USER_OTP_IP_HOURLY_LIMIT = 60;
  /** How long a session lasts. */
  @Setting(int(60, YEAR_SECONDS)) USER_SESSION_TTL_SECONDS = 30 * 24 * 3600;
  /** How long an instance keeps a verified session (with its user) in memory; 0: never. */
  @Setting(int(0, 3_600_000)) USER_SESSION_CACHE_TTL_MS = 60_000;
  /** Days an expired session (its address and user agent) is kept before it is removed. */
  @Setting(int(1, 3650)) USER_SESSION_RETENTION_DAYS = 30;
  /** Seconds between a user's erasure request and the erasure; 0: at once. */
  @Setting(int(0, YEAR_SECONDS)) USER_DELETION_GRACE_SECONDS = 7 * 24 * 3600;
}
