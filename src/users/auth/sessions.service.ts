import { Injectable, OnModuleInit } from '@nestjs/common';
import { EntityManager, IsNull } from 'typeorm';
import { UserPrincipal } from '../../common/auth/principal';
import { SessionVerifiers } from '../../common/auth/session-verifiers';
import { UsersConfig } from '../users.config';
import { ChangeNotifications } from '../../database/change-notifications';
import { SiteUserEntity } from '../entities/site-user.entity';
import { UserSessionEntity } from '../entities/user-session.entity';
import { hashSessionToken, newSessionToken } from './otp-code';
import { SessionCache, VerifiedSession } from './session-cache';
import { UsersRepository } from '../users.repository';

export interface NewSession {
  token: string;
  session: UserSessionEntity;
}

/**
 * Site-user sessions: opaque tokens stored as their SHA-256, bound to one site,
 * expiring, revocable. Registered with the foundation's SessionVerifiers, so a bearer token that
 * is not an API key is looked up here; verified ones are kept in memory with their user, and
 * every instance drops them at commit when a session is revoked or a user changes.
 */
@Injectable()
export class SessionsService implements OnModuleInit {
  private readonly cache: SessionCache;

  constructor(
    private readonly verifiers: SessionVerifiers,
    private readonly repository: UsersRepository,
    private readonly notifications: ChangeNotifications,
    private readonly config: UsersConfig,
  ) {
    this.cache = new SessionCache(config.USER_SESSION_CACHE_TTL_MS, () => notifications.live);
  }

  onModuleInit(): void {
    this.notifications.subscribe('sitebase_sessions', () => this.cache.reset());
    this.verifiers.register(async (token) => (await this.verify(token))?.principal ?? null);
  }

  /** The session of a token and its user, from memory when this instance verified it lately. */
  async verify(token: string): Promise<VerifiedSession | null> {
    if (!token.startsWith('sbs_') || token.length > 100) return null;
    const hash = hashSessionToken(token);
    const cached = this.cache.get(hash);
    if (cached) return cached.session;
    const gen = this.cache.generation;
    const row = await this.repository.session(hash);
    const session: VerifiedSession | null = row && {
      principal: {
        kind: 'user',
        accountId: row.accountId,
        siteId: row.siteId,
        userId: row.user.id,
        sessionId: row.sessionId,
        deletionScheduled: row.user.deletionScheduledAt !== null,
      },
      user: row.user,
    };
    this.cache.set(hash, gen, session, row ? row.expiresAt.getTime() : null);
    return session;
  }

  /**
   * The user of the request's session: as its verification read it when this instance keeps it
   * (GET /me costs no query), else from the database.
   */
  async userOf(principal: UserPrincipal): Promise<SiteUserEntity | null> {
    const cached = this.cache.session(principal.sessionId);
    if (cached && cached.principal.userId === principal.userId) return cached.user;
    return (
      (await this.repository.find(
        { id: principal.siteId, name: '', accountId: principal.accountId },
        principal.userId,
      )) ?? null
    );
  }

  /** Starts a session for the user, in the sign-in's transaction. */
  async create(
    em: EntityManager,
    user: SiteUserEntity,
    client: { ip?: string; userAgent?: string },
  ): Promise<NewSession> {
    const token = newSessionToken();
    const session = await em.save(
      em.create(UserSessionEntity, {
        siteId: user.siteId,
        userId: user.id,
        tokenHash: hashSessionToken(token),
        expiresAt: new Date(Date.now() + this.config.USER_SESSION_TTL_SECONDS * 1000),
        revokedAt: null,
        ip: client.ip?.slice(0, 100) ?? null,
        userAgent: client.userAgent?.slice(0, 500) ?? null,
      }),
    );
    return { token, session };
  }

  /** Ends one session (sign-out). */
  async revoke(em: EntityManager, sessionId: number): Promise<void> {
    await em.update(UserSessionEntity, { id: sessionId, revokedAt: IsNull() }, { revokedAt: new Date() });
  }

  /** Ends every session of a user (disabled, erased). */
  async revokeAll(em: EntityManager, userId: number): Promise<void> {
    await em.update(UserSessionEntity, { userId, revokedAt: IsNull() }, { revokedAt: new Date() });
  }

  /** After a commit that changed sessions or users: this instance forgets at once (others at the NOTIFY). */
  changed(): void {
    this.notifications.changed('sitebase_sessions');
  }

  /** After a commit that must reach every instance before its caller is answered: waits until each has read it (docs/users.md). */
  changedEverywhere(): Promise<void> {
    return this.notifications.changedEverywhere('sitebase_sessions');
  }
}
