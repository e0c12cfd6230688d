import { Injectable } from '@nestjs/common';
import { EntityManager, EntityTarget, ObjectLiteral } from 'typeorm';
import { OF_ACCOUNT } from '../common/deletion/account-data.registry';
import { MediaItemEntity } from './entities/media-item.entity';

/** The account purge's statements over the media tables (docs/modules.md). */
@Injectable()
export class MediaDataRepository {
  /** Rows of the entity in the account's sites; `originalsOnly` leaves thumbnails out. */
  countOfAccount(
    em: EntityManager,
    entity: EntityTarget<ObjectLiteral>,
    accountId: number,
    originalsOnly = false,
  ): Promise<number> {
    const qb = ofAccount(em, entity, accountId);
    return (originalsOnly ? qb.andWhere('x.original_id IS NULL') : qb).getCount();
  }

  /** The storage keys of every media item of the account's sites. */
  async storageKeysOfAccount(em: EntityManager, accountId: number): Promise<string[]> {
    const keys = await ofAccount(em, MediaItemEntity, accountId).select('x.storage_key', 'key').getRawMany<{
      key: string;
    }>();
    return keys.map((k) => k.key);
  }

  /** Deletes the entity's rows of the account's sites; answers how many. */
  async removeOfAccount(em: EntityManager, entity: EntityTarget<ObjectLiteral>, accountId: number): Promise<number> {
    const result = await em.createQueryBuilder().delete().from(entity).where(OF_ACCOUNT.site, { accountId }).execute();
    return result.affected ?? 0;
  }
}

function ofAccount<E extends ObjectLiteral>(em: EntityManager, entity: EntityTarget<E>, accountId: number) {
  return em.createQueryBuilder(entity, 'x').where(`x.${OF_ACCOUNT.site}`, { accountId });
}
