import { createHash } from 'node:crypto';
import { DataSource, IsNull, Not } from 'typeorm';
import { TooManyRequestsProblem } from '../../common/errors/problems';
import { RateLimitStore } from '../../common/rate-limit/rate-limit.store';
import { SiteContext } from '../../common/tenancy/site-context';
import { UsersConfig } from '../users.config';
import { SiteUserEntity } from '../entities/site-user.entity';

const HOUR_MS = 3600_000;
const DAY_MS = 24 * HOUR_MS;

/** Who is asking, for the per-IP limit and the session's record. */
export interface ClientInfo {
  ip?: string;
  userAgent?: string;
}

/**
 * What an address's shares allow for one more code: mail it, or nothing (the answer stays the
 * same), or, the first time in a day that its daily share refuses a code, a notice to the
 * verified user who owns it.
 */
export type AddressShare = { mail: true } | { mail: false; notice?: { until: Date } };

/**
 * The limits of one-time codes (docs/users.md, "Limits"), counted in the foundation's rate-limit
 * store (shared by instances) and checked before any write. Per client IP and per user they
 * answer 429; per address they are silent (no enumeration), and shared by sign-in and
 * email-change codes: one mailbox.
 */
export class OtpLimits {
  constructor(
    private readonly store: RateLimitStore,
    private readonly config: UsersConfig,
    private readonly dataSource: DataSource,
  ) {}

  /** Code requests and tries from one IP of a site, per hour (429 past it). */
  async ip(site: SiteContext, client: ClientInfo): Promise<void> {
    if (!client.ip) return;
    await this.refuse(`otp-ip:${site.id}:${client.ip}`, this.config.USER_OTP_IP_HOURLY_LIMIT);
  }

  /** Email changes one user asks for, per hour, whatever the address (429 past it). */
  async user(site: SiteContext, userId: number): Promise<void> {
    await this.refuse(`otp-user:${site.id}:${userId}`, this.config.USER_OTP_EMAIL_HOURLY_LIMIT);
  }

  /**
   * The address's hourly and daily shares. The first refusal by the daily share in a day may
   * tell the address's owner: only a verified user of the site, so nobody can make the server
   * mail an address it does not know.
   */
  async address(site: SiteContext, email: string): Promise<AddressShare> {
    // The counters' keys hold a hash of the address, not the address (an erasure leaves nothing behind).
    const emailKey = createHash('sha256').update(email).digest('base64url');
    const hourly = await this.store.hit(
      `otp-email:${site.id}:${emailKey}`,
      HOUR_MS,
      this.config.USER_OTP_EMAIL_HOURLY_LIMIT,
      HOUR_MS,
    );
    if (hourly.blocked) return { mail: false };
    const daily = await this.store.hit(
      `otp-email-day:${site.id}:${emailKey}`,
      DAY_MS,
      this.config.USER_OTP_EMAIL_DAILY_LIMIT,
      DAY_MS,
    );
    if (!daily.blocked) return { mail: true };
    const owned = await this.dataSource.getRepository(SiteUserEntity).exists({
      where: { siteId: site.id, email, emailVerifiedAt: Not(IsNull()) },
    });
    if (!owned) return { mail: false };
    const once = await this.store.hit(`otp-email-notice:${site.id}:${emailKey}`, DAY_MS, 1, DAY_MS);
    return once.blocked ? { mail: false } : { mail: false, notice: { until: new Date(daily.until) } };
  }

  private async refuse(key: string, limit: number): Promise<void> {
    const d = await this.store.hit(key, HOUR_MS, limit, HOUR_MS);
    if (d.blocked) throw new TooManyRequestsProblem(d.retryAfter);
  }
}

/** `2026-01-02 08:00 UTC`: the minute (rounded up) codes may be sent again. */
export function untilText(until: Date): string {
  const minute = new Date(Math.ceil(until.getTime() / 60_000) * 60_000);
  return `${minute.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
