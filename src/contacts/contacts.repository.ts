import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
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
  private readonly contactList = new ShapedReads<ContactEntity>();
  private readonly contactOne = new ShapedReads<ContactEntity>();

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
    // Which filters are present, and the page: everything else is a parameter.
    const shape = {
      ...keysetShape(query),
      status: query.status !== undefined,
      email: query.email !== undefined,
      tag: query.tag !== undefined,
      q: query.q !== undefined,
      from: query.from !== undefined,
      to: query.to !== undefined,
    };
    const { entities } = await this.contactList.read(shape, params, (s) => {
      const qb = this.contacts.createQueryBuilder('x').where('x.site_id = :siteId');
      if (s.status) qb.andWhere('x.status = :status');
      if (s.email) qb.andWhere('x.email = :email');
      if (s.tag) qb.andWhere('x.tags @> ARRAY[:tag]::text[]');
      if (s.q) qb.andWhere(`${CONTACT_SEARCH_EXPRESSION} @@ websearch_to_tsquery('simple', :q)`);
      if (s.from) qb.andWhere('x.created_at >= :from');
      if (s.to) qb.andWhere('x.created_at < :to');
      return applyKeysetShape(qb, NEWEST, s);
    });
    return keysetPage(entities, query.limit, (c) => [c.createdAt.toISOString(), c.id]);
  }

  async find(site: SiteContext, id: number): Promise<ContactEntity | null> {
    const { entities } = await this.contactOne.read({}, { siteId: site.id, id }, () =>
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
