import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, Repository } from 'typeorm';
import {
  applyKeysetShape,
  KeysetColumn,
  keysetPage,
  keysetParameters,
  keysetShape,
  Page,
} from '../common/pagination/page';
import { SiteContext } from '../common/tenancy/site-context';
import { ShapedReads } from '../database/fast-read';
import { DAY_SECONDS, deleteAged } from '../database/retention-sql';
import { sql } from '../database/sql';
import { UserQueryDto } from './dto/user.dto';
import { SiteUserEntity, UserStatus } from './entities/site-user.entity';
import { UserOtpEntity } from './entities/user-otp.entity';

const NEWEST: KeysetColumn[] = [
  { expr: 'x.created_at', type: 'timestamp' },
  { expr: 'x.id', type: 'number' },
];

/** A session found by its token's hash, with its user and the site's account. */
export interface SessionRow {
  sessionId: number;
  siteId: number;
  accountId: number;
  expiresAt: Date;
  user: SiteUserEntity;
}

/** User reads on the fast path (docs/performance.md) and the session lookup of every signed-in request. */
@Injectable()
export class UsersRepository {
  private readonly userList = new ShapedReads<SiteUserEntity>();
  private readonly userOne = new ShapedReads<SiteUserEntity>();

  constructor(@InjectRepository(SiteUserEntity) private readonly users: Repository<SiteUserEntity>) {}

  /** Newest first over (site_id, created_at, id); `email` is a substring of the address. */
  async list(site: SiteContext, query: UserQueryDto): Promise<Page<SiteUserEntity>> {
    const params = {
      siteId: site.id,
      status: query.status,
      email: query.email === undefined ? undefined : `%${query.email.replace(/[\\%_]/g, '\\$&')}%`,
      from: query.from,
      to: query.to,
      ...keysetParameters(NEWEST, query),
    };
    const shape = {
      ...keysetShape(query),
      status: Boolean(query.status),
      email: query.email !== undefined,
      from: Boolean(query.from),
      to: Boolean(query.to),
    };
    const { entities } = await this.userList.read(shape, params, (s) => {
      const qb = this.users.createQueryBuilder('x').where('x.site_id = :siteId');
      if (s.status) qb.andWhere('x.status = :status');
      if (s.email) qb.andWhere('x.email LIKE :email');
      if (s.from) qb.andWhere('x.created_at >= :from');
      if (s.to) qb.andWhere('x.created_at < :to');
      return applyKeysetShape(qb, NEWEST, s);
    });
    return keysetPage(entities, query.limit, (u) => [u.createdAt.toISOString(), u.id]);
  }

  /**
   * The site's user of an address, made now if there is none. A concurrent first creation waits
   * on the unique index and then finds the row the other one made; the row comes locked.
   */
  async findOrCreate(
    em: EntityManager,
    siteId: number,
    email: string,
  ): Promise<{ user: SiteUserEntity; created: boolean }> {
    const inserted = await em
      .createQueryBuilder()
      .insert()
      .into(SiteUserEntity)
      .values({ siteId, email, name: '', status: 'active', metadata: {} })
      .orIgnore()
      .returning(['id'])
      .execute();
    const user = await em.findOneOrFail(SiteUserEntity, {
      where: { siteId, email },
      lock: { mode: 'pessimistic_write' },
    });
    return { user, created: (inserted.raw as unknown[]).length > 0 };
  }

  /** Deletes the site's one-time codes of a user, or of their address (before they had an account). */
  async deleteOtps(em: EntityManager, siteId: number, email: string, userId: number): Promise<number> {
    const otps = await em
      .createQueryBuilder()
      .delete()
      .from(UserOtpEntity)
      .where('site_id = :siteId AND (email = :email OR user_id = :userId)', { siteId, email, userId })
      .execute();
    return otps.affected ?? 0;
  }

  async find(site: SiteContext, id: number): Promise<SiteUserEntity | undefined> {
    const { entities } = await this.userOne.read({}, { siteId: site.id, id }, () =>
      this.users.createQueryBuilder('x').where('x.site_id = :siteId').andWhere('x.id = :id').limit(1),
    );
    return entities[0];
  }

  /** A live session (not revoked, not expired) of an active user, by token hash; one statement. */
  async session(tokenHash: string): Promise<SessionRow | null> {
    const { rows } = await sql<{
      session_id: number;
      site_id: number;
      account_id: number;
      expires_at: Date;
      id: number;
      email: string;
      name: string;
      status: UserStatus;
      metadata: Record<string, unknown>;
      email_verified_at: Date | null;
      last_sign_in_at: Date | null;
      deletion_scheduled_at: Date | null;
      created_at: Date;
      updated_at: Date;
    }>(
      this.users.manager,
      `SELECT s.id AS session_id, s.site_id, st.account_id, s.expires_at, u.id, u.email, u.name, u.status,
              u.metadata, u.email_verified_at, u.last_sign_in_at, u.deletion_scheduled_at, u.created_at, u.updated_at
         FROM user_sessions s JOIN site_users u ON u.id = s.user_id JOIN sites st ON st.id = s.site_id
        WHERE s.token_hash = $1 AND s.revoked_at IS NULL AND s.expires_at > now() AND u.status = 'active'`,
      [tokenHash],
      { bigints: ['session_id', 'site_id', 'account_id', 'id'] },
    );
    const r = rows[0];
    if (!r) return null;
    const user = Object.assign(new SiteUserEntity(), {
      id: r.id,
      siteId: r.site_id,
      email: r.email,
      name: r.name,
      status: r.status,
      metadata: r.metadata,
      emailVerifiedAt: r.email_verified_at,
      lastSignInAt: r.last_sign_in_at,
      deletionScheduledAt: r.deletion_scheduled_at,
      createdAt: r.created_at,
      updatedAt: r.updated_at,
    });
    return { sessionId: r.session_id, siteId: r.site_id, accountId: r.account_id, expiresAt: r.expires_at, user };
  }

  /**
   * Retention: at most `limit` sessions expired more than `days` ago, longest expired first
   * (index user_sessions_expires_at_idx); a revoked one goes once it would have expired.
   */
  deleteExpiredSessions(db: DataSource, days: number, limit: number): Promise<number> {
    return deleteAged(db, { table: 'user_sessions', time: 'expires_at' }, days * DAY_SECONDS, limit);
  }

  /**
   * Retention: at most `limit` one-time codes expired more than a day ago (index
   * user_otps_expires_at_idx). Nothing reads an expired code: the resend pause looks at the
   * newest code of an address for at most an hour (USER_OTP_RESEND_SECONDS), the send limits
   * are counted in rate_limits.
   */
  deleteExpiredOtps(db: DataSource, limit: number): Promise<number> {
    return deleteAged(db, { table: 'user_otps', time: 'expires_at' }, DAY_SECONDS, limit);
  }
}
