import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { applyKeyset, KeysetColumn, keysetPage, keysetParameters, Page } from '../common/pagination/page';
import { SiteContext } from '../common/tenancy/site-context';
import { ShapedReads } from '../database/fast-read';
import { sql } from '../database/sql';
import { ContactQueryDto } from './dto/contact.dto';
import { CONTACT_SEARCH_EXPRESSION, ContactEntity } from './entities/contact.entity';

/** Newest first. */
const NEWEST: KeysetColumn[] = [
  { expr: 'x.created_at', type: 'timestamp' },
  { expr: 'x.id', type: 'number' },
];

/**
 * The inbox's reads on the fast path (docs/performance.md), the savepoint that keeps a failed
 * notification from losing a message, and the erasure by address.
 */
@Injectable()
export class ContactsRepository {
  private readonly reads = new ShapedReads<ContactEntity>();

  constructor(@InjectRepository(ContactEntity) private readonly contacts: Repository<ContactEntity>) {}

  /**
   * Indexes: (site_id, created_at, id) for the inbox and a date range, (site_id, status, …) and
   * (site_id, email, …) for those filters; `tag` and the words of `q` use GIN indexes.
   */
  async list(site: SiteContext, query: ContactQueryDto): Promise<Page<ContactEntity>> {
    const params = {
      siteId: site.id,
      status: query.status,
      email: query.email,
      tag: query.tag,
      q: query.q,
      from: query.from,
      to: query.to,
      ...keysetParameters(NEWEST, query),
    };
    // Which filters are present, and the limit: everything else is a parameter.
    const shape =
      [query.status, query.email, query.tag, query.q, query.from, query.to, query.cursor]
        .map((v) => (v === undefined ? 0 : 1))
        .join('') + `:${query.limit}`;
    const { entities } = await this.reads.read(shape, params, () => {
      const qb = this.contacts.createQueryBuilder('x').where('x.site_id = :siteId');
      if (query.status !== undefined) qb.andWhere('x.status = :status');
      if (query.email !== undefined) qb.andWhere('x.email = :email');
      if (query.tag !== undefined) qb.andWhere('x.tags @> ARRAY[:tag]::text[]');
      if (query.q !== undefined) qb.andWhere(`${CONTACT_SEARCH_EXPRESSION} @@ websearch_to_tsquery('simple', :q)`);
      if (query.from !== undefined) qb.andWhere('x.created_at >= :from');
      if (query.to !== undefined) qb.andWhere('x.created_at < :to');
      return applyKeyset(qb, NEWEST, query);
    });
    return keysetPage(entities, query.limit, (c) => [c.createdAt.toISOString(), c.id]);
  }

  async find(site: SiteContext, id: number): Promise<ContactEntity | null> {
    const { entities } = await this.reads.read('one', { siteId: site.id, id }, () =>
      this.contacts.createQueryBuilder('x').where('x.site_id = :siteId').andWhere('x.id = :id').limit(1),
    );
    return entities[0] ?? null;
  }

  /**
   * Runs `work` in a savepoint of the caller's transaction: when it throws, only its statements
   * are rolled back and the error is handed back, so the caller's own change can still commit.
   */
  async inSavepoint(em: EntityManager, work: () => Promise<unknown>): Promise<unknown> {
    await sql(em, 'SAVEPOINT contacts_notify');
    try {
      await work();
      await sql(em, 'RELEASE SAVEPOINT contacts_notify');
      return null;
    } catch (err) {
      await sql(em, 'ROLLBACK TO SAVEPOINT contacts_notify');
      return err;
    }
  }

  /** Deletes a site's contacts from `email` (already lower-cased); answers how many. */
  async deleteByEmail(em: EntityManager, siteId: number, email: string): Promise<number> {
    const { rowCount } = await sql(em, 'DELETE FROM contacts WHERE site_id = $1 AND email = $2', [siteId, email]);
    return rowCount;
  }
}
