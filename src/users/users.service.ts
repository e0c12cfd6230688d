import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { UserPrincipal } from '../common/auth/principal';
import { ConflictProblem, NotFoundProblem, UnauthorizedProblem, ValidationProblem } from '../common/errors/problems';
import { isUniqueViolation } from '../common/errors/postgres-errors';
import { recordEvent } from '../common/outbox/record-event';
import { Page } from '../common/pagination/page';
import { findInSiteOrFail, SiteContext } from '../common/tenancy/site-context';
import { UpdateMeDto, UpdateUserDto, UserQueryDto } from './dto/user.dto';
import { SiteUserEntity } from './entities/site-user.entity';
import { normaliseEmail } from './auth/otp-code';
import { ClientInfo } from './auth/otp-limits';
import { OtpService } from './auth/otp.service';
import { SessionsService } from './auth/sessions.service';
import { USER_EVENTS } from './users.events';
import { UsersRepository } from './users.repository';

/** Metadata of a user, at most this many bytes of JSON. */
const MAX_METADATA_BYTES = 16 * 1024;
const EMAIL_KEY = 'site_users_site_id_email_key';

/** Site users as operators (a secret key) and the users themselves (a session) see them (docs/users.md). */
@Injectable()
export class UsersService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly repository: UsersRepository,
    private readonly sessions: SessionsService,
    private readonly otp: OtpService,
  ) {}

  list(site: SiteContext, query: UserQueryDto): Promise<Page<SiteUserEntity>> {
    return this.repository.list(
      site,
      query.email === undefined ? query : { ...query, email: normaliseEmail(query.email) },
    );
  }

  async get(site: SiteContext, id: number): Promise<SiteUserEntity> {
    const user = await this.repository.find(site, id);
    if (!user) throw new NotFoundProblem('User');
    return user;
  }

  /** An operator's change; disabling a user ends every session of theirs at once. */
  async update(site: SiteContext, id: number, dto: UpdateUserDto): Promise<SiteUserEntity> {
    checkMetadata(dto.metadata);
    let changed = false;
    const user = await this.dataSource.transaction(async (em) => {
      const user = await findInSiteOrFail(em, SiteUserEntity, site, id, 'User', { lock: true });
      const fields = changedFields(user, { ...dto, email: dto.email && normaliseEmail(dto.email) });
      changed = fields.length > 0;
      if (dto.name !== undefined) user.name = dto.name;
      if (dto.metadata !== undefined) user.metadata = dto.metadata;
      // A corrected address is not proven: until its owner signs in with a code, no mail to it
      // carries the user's name (docs/users.md, "Signing in").
      if (fields.includes('email')) [user.email, user.emailVerifiedAt] = [normaliseEmail(dto.email!), null];
      if (dto.status !== undefined) user.status = dto.status;
      const saved = await this.save(em, user);
      if (dto.status === 'disabled') await this.sessions.revokeAll(em, user.id);
      if (fields.length)
        await recordEvent(em, site, USER_EVENTS.updated, { id: saved.id, status: saved.status, fields });
      return saved;
    });
    // Nothing written, no NOTIFY to wait for.
    if (changed) await this.sessions.changedEverywhere();
    else this.sessions.changed();
    return user;
  }

  /**
   * The site's user of an address (normalised), made now if there is none (`user.created`), in
   * the caller's transaction: the customer of an order placed with a key, for whom a payment
   * processor keeps a Customer (docs/payments.md, "Orders"). They can sign in with the address.
   */
  async findOrCreateByEmail(em: EntityManager, site: SiteContext, email: string): Promise<SiteUserEntity> {
    const { user, created } = await this.repository.findOrCreate(em, site.id, normaliseEmail(email));
    if (created) await recordEvent(em, site, USER_EVENTS.created, { id: user.id, status: user.status });
    return user;
  }

  /** The signed-in user, as their session's verification read it. */
  async me(principal: UserPrincipal): Promise<SiteUserEntity> {
    const user = await this.sessions.userOf(principal);
    if (!user)
      throw new UnauthorizedProblem('invalid_session', 'The session token is invalid, expired or revoked', 'session');
    return user;
  }

  /**
   * The user's own change: the fields marked `user` (UpdateMeDto). A new address is mailed a
   * code and changes only once that is verified (`pendingEmail`); its limits are checked before
   * anything is written, so a 429 changes nothing.
   */
  async updateMe(
    site: SiteContext,
    principal: UserPrincipal,
    dto: UpdateMeDto,
    client: ClientInfo,
  ): Promise<{ user: SiteUserEntity; pendingEmail: string | null }> {
    const newEmail = dto.email === undefined ? null : normaliseEmail(dto.email);
    const asked = newEmail !== null && newEmail !== (await this.me(principal)).email ? newEmail : null;
    const share = asked ? await this.otp.checkEmailChange(site, principal.userId, asked, client) : null;
    const result = await this.dataSource.transaction(async (em) => {
      const user = await findInSiteOrFail(em, SiteUserEntity, site, principal.userId, 'User', { lock: true });
      const fields = changedFields(user, { name: dto.name });
      if (dto.name !== undefined) user.name = dto.name;
      const saved = fields.length ? await em.save(user) : user;
      if (fields.length)
        await recordEvent(em, site, USER_EVENTS.updated, { id: saved.id, status: saved.status, fields });
      const pendingEmail = asked && share && asked !== saved.email ? asked : null;
      if (pendingEmail) await this.otp.requestEmailChange(em, site, saved, pendingEmail, share!);
      return { user: saved, pendingEmail };
    });
    this.sessions.changed();
    return result;
  }

  /** Ends the request's own session. */
  async signOut(principal: UserPrincipal): Promise<void> {
    await this.dataSource.transaction((em) => this.sessions.revoke(em, principal.sessionId));
    await this.sessions.changedEverywhere();
  }

  private async save(em: EntityManager, user: SiteUserEntity): Promise<SiteUserEntity> {
    try {
      return await em.save(user);
    } catch (err) {
      if (isUniqueViolation(err, EMAIL_KEY))
        throw new ConflictProblem('email_taken', 'Another user of this site has that address');
      throw err;
    }
  }
}

function checkMetadata(metadata: Record<string, unknown> | undefined): void {
  if (metadata !== undefined && Buffer.byteLength(JSON.stringify(metadata)) > MAX_METADATA_BYTES)
    throw new ValidationProblem([{ path: 'metadata', message: `must be at most ${MAX_METADATA_BYTES} bytes of JSON` }]);
}

/** The names of the fields `changes` sets to another value than `user` has. */
function changedFields(
  user: SiteUserEntity,
  changes: { name?: string; metadata?: Record<string, unknown>; email?: string; status?: string },
): string[] {
  return (['name', 'email', 'status', 'metadata'] as const).filter((f) => {
    const next = changes[f];
    if (next === undefined) return false;
    return f === 'metadata' ? JSON.stringify(next) !== JSON.stringify(user.metadata) : next !== user[f];
  });
}
