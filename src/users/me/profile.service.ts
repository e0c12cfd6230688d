import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { NotFoundProblem, ValidationProblem } from '../../common/errors/problems';
import { findInSiteOrFail, SiteContext } from '../../common/tenancy/site-context';
import { SiteUserEntity } from '../entities/site-user.entity';
import { UserProfileEntryEntity } from '../entities/user-profile-entry.entity';

export const MAX_PROFILE_KEYS = 100;
export const MAX_PROFILE_VALUE_BYTES = 16 * 1024;

/** A user's profile: up to 100 keys, each a JSON value of at most 16 KB (docs/users.md). */
@Injectable()
export class ProfileService {
  constructor(private readonly dataSource: DataSource) {}

  /** Every entry of a user of the site, by key (404 for another site's user). */
  async entries(site: SiteContext, userId: number): Promise<UserProfileEntryEntity[]> {
    const repo = this.dataSource.getRepository(UserProfileEntryEntity);
    const entries = await repo.find({ where: { userId, siteId: site.id }, order: { key: 'ASC' } });
    if (entries.length === 0) await findInSiteOrFail(this.dataSource.manager, SiteUserEntity, site, userId, 'User');
    return entries;
  }

  /** Replaces (or adds) one entry; the 101st key is a 400. */
  put(site: SiteContext, userId: number, key: string, value: unknown): Promise<UserProfileEntryEntity> {
    if (Buffer.byteLength(JSON.stringify(value)) > MAX_PROFILE_VALUE_BYTES)
      throw new ValidationProblem([
        { path: 'value', message: `must be at most ${MAX_PROFILE_VALUE_BYTES} bytes of JSON` },
      ]);
    return this.dataSource.transaction(async (em) => {
      // The user's row lock makes the key count exact under concurrent puts.
      await findInSiteOrFail(em, SiteUserEntity, site, userId, 'User', { lock: true });
      const exists = await em.exists(UserProfileEntryEntity, { where: { userId, key } });
      if (!exists && (await em.count(UserProfileEntryEntity, { where: { userId } })) >= MAX_PROFILE_KEYS)
        throw new ValidationProblem([{ path: 'key', message: `a profile has at most ${MAX_PROFILE_KEYS} keys` }]);
      await em.upsert(
        UserProfileEntryEntity,
        { userId, key, siteId: site.id, value: value as object, updatedAt: new Date() },
        ['userId', 'key'],
      );
      return em.findOneByOrFail(UserProfileEntryEntity, { userId, key });
    });
  }

  async remove(site: SiteContext, userId: number, key: string): Promise<void> {
    const result = await this.dataSource.getRepository(UserProfileEntryEntity).delete({ userId, key, siteId: site.id });
    if (!result.affected) throw new NotFoundProblem('Profile entry');
  }
}
