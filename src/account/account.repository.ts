import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { IdempotencyKeyEntity } from '../common/idempotency/idempotency-key.entity';
import { OutboxEventEntity } from '../common/outbox/outbox-event.entity';
import { applyKeyset, CursorQueryDto, keysetPage, Page } from '../common/pagination/page';
import { SiteEntity } from '../common/tenancy/entities/site.entity';

/** The account module's queries (docs/modules.md): the site list and the account's bookkeeping. */
@Injectable()
export class AccountRepository {
  constructor(@InjectRepository(SiteEntity) private readonly sites: Repository<SiteEntity>) {}

  /** The account's sites in creation order; `siteIds` (a key limited to some) narrows them. */
  async listSites(accountId: number, siteIds: number[] | null, query: CursorQueryDto): Promise<Page<SiteEntity>> {
    const qb = this.sites.createQueryBuilder('s').where('s.account_id = :accountId', { accountId });
    if (siteIds !== null) qb.andWhere('s.id = ANY(:ids)', { ids: siteIds });
    const rows = await applyKeyset(qb, [{ expr: 's.id', type: 'number' }], query, 'ASC').getMany();
    return keysetPage(rows, query.limit, (s) => [s.id]);
  }

  /** How many events of each name the account has that the relay has not handed on yet. */
  undeliveredEvents(em: EntityManager, accountId: number): Promise<Array<{ name: string; n: number }>> {
    return em
      .createQueryBuilder(OutboxEventEntity, 'e')
      .select('e.name', 'name')
      .addSelect('count(*)::int', 'n')
      .where('e.account_id = :accountId AND e.dispatched_at IS NULL AND e.parked_at IS NULL', { accountId })
      .groupBy('e.name')
      .orderBy('e.name')
      .getRawMany<{ name: string; n: number }>();
  }

  /** Deletes the idempotency records of the account's requests (scoped `account:<id>:…`). */
  async deleteIdempotencyKeys(em: EntityManager, accountId: number): Promise<void> {
    await em
      .createQueryBuilder()
      .delete()
      .from(IdempotencyKeyEntity)
      .where('scope LIKE :prefix', { prefix: `account:${accountId}:%` })
      .execute();
  }
}
