import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, IsNull } from 'typeorm';
import { UserPrincipal } from '../../common/auth/principal';
import { ConflictProblem, ForbiddenProblem, UnauthorizedProblem } from '../../common/errors/problems';
import { isUniqueViolation } from '../../common/errors/postgres-errors';
import { RateLimitStore } from '../../common/rate-limit/rate-limit.store';
import { recordEvent } from '../../common/outbox/record-event';
import { SiteContext } from '../../common/tenancy/site-context';
import { UsersConfig } from '../users.config';
import { namedXactLock } from '../../database/sql';
import { EmailService } from '../../email/email.service';
import { SiteUserEntity } from '../entities/site-user.entity';
import { UsersRepository } from '../users.repository';
import { OtpPurpose, UserOtpEntity } from '../entities/user-otp.entity';
import { hashOtpCode, newOtpCode, newSalt, normaliseEmail, otpCodeMatches } from './otp-code';
import { AddressShare, ClientInfo, OtpLimits, untilText } from './otp-limits';
import { NewSession, SessionsService } from './sessions.service';
import { USER_EVENTS } from '../users.events';

const EMAIL_KEY = 'site_users_site_id_email_key';

export interface SignIn extends NewSession {
  user: SiteUserEntity;
}

/**
 * Sign-in by one-time password (docs/users.md). A code is mailed to any address asked for,
 * known or not (the first verified code creates the user), so the answer and the work are the
 * same either way: nothing tells whether an address has an account.
 */
@Injectable()
export class OtpService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly email: EmailService,
    private readonly sessions: SessionsService,
    store: RateLimitStore,
    private readonly config: UsersConfig,
    private readonly users: UsersRepository,
  ) {
    this.limits = new OtpLimits(store, config, dataSource);
  }

  private readonly limits: OtpLimits;

  /**
   * Mails a code, unless the address's shares say no (docs/users.md, "Limits"): then nothing
   * is sent, and the answer is the same.
   */
  async request(site: SiteContext, rawEmail: string, client: ClientInfo): Promise<void> {
    await this.limits.ip(site, client);
    const email = normaliseEmail(rawEmail);
    const share = await this.limits.address(site, email);
    if (!share.mail && !share.notice) return;
    await this.dataSource.transaction(async (em) => {
      if (!share.mail) return this.mailLimitNotice(em, site, email, share.notice!.until);
      const user = await em.findOne(SiteUserEntity, { where: { siteId: site.id, email } });
      // A name greets only its own verified address: a user made from an order's address, or
      // whose address an operator corrected, could be someone else's mailbox.
      const userName = user?.emailVerifiedAt ? user.name || undefined : undefined;
      await this.issue(em, site, email, 'sign_in', null, userName);
    });
  }

  /**
   * Signs in with a mailed code: the first success creates the user. A wrong code counts an
   * attempt (committed even though the answer is a 401); after USER_OTP_MAX_ATTEMPTS even the
   * right code fails; a code works once.
   */
  async verify(site: SiteContext, rawEmail: string, code: string, client: ClientInfo): Promise<SignIn> {
    await this.limits.ip(site, client);
    const email = normaliseEmail(rawEmail);
    const outcome = await this.dataSource.transaction(async (em) => {
      const otp = await this.consume(em, site, { email, purpose: 'sign_in' }, code);
      if (!otp) return null;
      const { user: found, created } = await this.users.findOrCreate(em, site.id, email);
      let user = found;
      if (user.status !== 'active') return 'disabled' as const;
      const now = new Date();
      user.lastSignInAt = now;
      user.emailVerifiedAt ??= now;
      user = await em.save(user);
      const session = await this.sessions.create(em, user, client);
      if (created) await recordEvent(em, site, USER_EVENTS.created, { id: user.id, status: user.status });
      await recordEvent(em, site, USER_EVENTS.signedIn, { id: user.id, sessionId: session.session.id });
      return { ...session, user };
    });
    if (outcome === 'disabled') throw new ForbiddenProblem('user_disabled', 'This user is disabled and cannot sign in');
    if (!outcome) throw invalidCode();
    return outcome;
  }

  /**
   * The limits of an email change, checked before anything is written (PATCH /me with a new
   * `email`): the client IP's and the user's hourly shares answer 429; the new address's
   * shares, the same as sign-in's, decide silently whether a code is mailed.
   */
  async checkEmailChange(site: SiteContext, userId: number, email: string, client: ClientInfo): Promise<AddressShare> {
    await this.limits.ip(site, client);
    await this.limits.user(site, userId);
    return this.limits.address(site, normaliseEmail(email));
  }

  /**
   * Mails a code to the user's new address as `share` allows (checkEmailChange), in `em`'s
   * transaction; nothing changes until it is verified. The address is not the user's yet: the
   * mail carries nothing the user wrote (no name).
   */
  async requestEmailChange(
    em: EntityManager,
    site: SiteContext,
    user: SiteUserEntity,
    email: string,
    share: AddressShare,
  ): Promise<void> {
    if (share.mail) await this.issue(em, site, email, 'email_change', user.id, undefined);
    else if (share.notice) await this.mailLimitNotice(em, site, email, share.notice.until);
  }

  /** Applies the new address once its code is verified (POST /me/verify-email). */
  async verifyEmailChange(
    site: SiteContext,
    principal: UserPrincipal,
    code: string,
    client: ClientInfo,
  ): Promise<SiteUserEntity> {
    await this.limits.ip(site, client);
    const outcome = await this.dataSource.transaction(async (em) => {
      const otp = await this.consume(em, site, { userId: principal.userId, purpose: 'email_change' }, code);
      if (!otp) return null;
      const user = await em.findOneOrFail(SiteUserEntity, { where: { id: principal.userId, siteId: site.id } });
      user.email = otp.email;
      user.emailVerifiedAt = new Date();
      try {
        await em.save(user);
      } catch (err) {
        if (isUniqueViolation(err, EMAIL_KEY))
          throw new ConflictProblem('email_taken', 'Another user of this site has that address');
        throw err;
      }
      await recordEvent(em, site, USER_EVENTS.updated, { id: user.id, status: user.status, fields: ['email'] });
      return user;
    });
    if (!outcome) throw invalidCode();
    this.sessions.changed();
    return outcome;
  }

  /** A new code for the address (the previous ones stop working), mailed in `em`'s transaction. */
  private async issue(
    em: EntityManager,
    site: SiteContext,
    email: string,
    purpose: OtpPurpose,
    userId: number | null,
    userName: string | undefined,
  ): Promise<void> {
    // Requests for one address take turns, so a parallel one sees the code just issued and the
    // resend wait holds (else each would mail a code). The lock ends with the transaction. The
    // wait is the mailbox's, whatever the code is for.
    await namedXactLock(em, `user_otps:${site.id}:${email}`);
    const last = await em.findOne(UserOtpEntity, { where: { siteId: site.id, email }, order: { id: 'DESC' } });
    if (last && Date.now() - last.createdAt.getTime() < this.config.USER_OTP_RESEND_SECONDS * 1000) return;
    await em.update(
      UserOtpEntity,
      { siteId: site.id, email, purpose, consumedAt: IsNull() },
      { consumedAt: new Date() },
    );
    const code = newOtpCode();
    const salt = newSalt();
    await em.insert(UserOtpEntity, {
      siteId: site.id,
      email,
      purpose,
      userId,
      salt,
      codeHash: hashOtpCode(salt, code),
      attempts: 0,
      expiresAt: new Date(Date.now() + this.config.USER_OTP_TTL_SECONDS * 1000),
      consumedAt: null,
    });
    await this.email.send(em, site, {
      to: { email },
      templateType: 'users.otp',
      data: {
        code,
        expiresInMinutes: Math.max(1, Math.round(this.config.USER_OTP_TTL_SECONDS / 60)),
        ...(userName ? { userName } : {}),
      },
      tags: [purpose === 'sign_in' ? 'sign-in' : 'email-change'],
    });
  }

  /**
   * The live code for the address (or the user's email change) if `code` is it, consumed; null
   * otherwise, with the attempt counted. Only the latest code counts.
   */
  private async consume(
    em: EntityManager,
    site: SiteContext,
    who: { email?: string; userId?: number; purpose: OtpPurpose },
    code: string,
  ): Promise<UserOtpEntity | null> {
    const otp = await em.findOne(UserOtpEntity, {
      where: {
        siteId: site.id,
        purpose: who.purpose,
        ...(who.email !== undefined ? { email: who.email } : { userId: who.userId }),
        consumedAt: IsNull(),
      },
      order: { id: 'DESC' },
      lock: { mode: 'pessimistic_write' },
    });
    if (!otp || otp.expiresAt.getTime() <= Date.now() || otp.attempts >= this.config.USER_OTP_MAX_ATTEMPTS) return null;
    if (!otpCodeMatches(otp.salt, otp.codeHash, code)) {
      await em.update(UserOtpEntity, { id: otp.id }, { attempts: otp.attempts + 1 });
      return null;
    }
    await em.update(UserOtpEntity, { id: otp.id }, { consumedAt: new Date(), attempts: otp.attempts + 1 });
    return otp;
  }

  /** Tells a verified user that their address had its day's share of codes, and until when. */
  private async mailLimitNotice(em: EntityManager, site: SiteContext, email: string, until: Date): Promise<void> {
    await this.email.send(em, site, {
      to: { email },
      templateType: 'users.otp_limit',
      data: { limit: this.config.USER_OTP_EMAIL_DAILY_LIMIT, until: untilText(until) },
      tags: ['sign-in', 'limit'],
    });
  }
}

function invalidCode(): UnauthorizedProblem {
  return new UnauthorizedProblem('invalid_code', 'The code is wrong, expired or used; ask for a new one');
}
