import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, In, Repository } from 'typeorm';
import {
  applyKeysetShape,
  KeysetColumn,
  keysetPage,
  keysetParameters,
  keysetShape,
  Page,
} from '../../common/pagination/page';
import { SiteContext } from '../../common/tenancy/site-context';
import { ShapedReads } from '../../database/fast-read';
import { sql } from '../../database/sql';
import { SuppressionQueryDto } from '../dto/suppression.dto';
import { EmailSuppressionEntity, SuppressionReason } from '../entities/email-bounce.entity';
import { erasedForm } from './erased-address';

const BY_ID: KeysetColumn[] = [{ expr: 'x.id', type: 'number' }];

/**
 * The operator's view of a site's suppressions (docs/deliverability.md): newest first by id over
 * (site_id, id); one address by the unique (site_id, email).
 */
@Injectable()
export class SuppressionsRepository {
  private readonly list = new ShapedReads<EmailSuppressionEntity>();
  private readonly one = new ShapedReads<EmailSuppressionEntity>();

  constructor(@InjectRepository(EmailSuppressionEntity) private readonly rows: Repository<EmailSuppressionEntity>) {}

  async listOf(site: SiteContext, query: SuppressionQueryDto): Promise<Page<EmailSuppressionEntity>> {
    const params = {
      siteId: site.id,
      reason: query.reason,
      email: query.email,
      erased: query.email === undefined ? undefined : erasedForm(query.email),
      ...keysetParameters(BY_ID, query),
    };
    const shape = { ...keysetShape(query), reason: Boolean(query.reason), email: query.email !== undefined };
    const { entities } = await this.list.read(shape, params, (s) => {
      const qb = this.rows.createQueryBuilder('x').where('x.site_id = :siteId');
      if (s.email) qb.andWhere('x.email IN (:email, :erased)');
      if (s.reason) qb.andWhere('x.reason = :reason');
      return applyKeysetShape(qb, BY_ID, s);
    });
    return keysetPage(entities, query.limit, (x) => [x.id]);
  }

  async find(site: SiteContext, id: number): Promise<EmailSuppressionEntity | undefined> {
    const { entities } = await this.one.read({}, { siteId: site.id, id }, () =>
      this.rows.createQueryBuilder('x').where('x.site_id = :siteId').andWhere('x.id = :id').limit(1),
    );
    return entities[0];
  }

  /** An operator's entry; null when the address is already suppressed (the entry there is left as it is). */
  async insertManual(
    em: EntityManager,
    siteId: number,
    email: string,
    note: string | null,
  ): Promise<EmailSuppressionEntity | null> {
    const { rows } = await sql<{ id: number }>(
      em,
      `INSERT INTO email_suppressions (site_id, email, reason, note)
       SELECT $1, $2, 'manual', $3
        WHERE NOT EXISTS (SELECT 1 FROM email_suppressions WHERE site_id = $1 AND email = $4)
       ON CONFLICT (site_id, email) DO NOTHING RETURNING id`,
      [siteId, email, note, erasedForm(email)],
      { bigints: ['id'] },
    );
    return rows[0] ? em.findOneByOrFail(EmailSuppressionEntity, { id: rows[0].id }) : null;
  }

  /** The site's entry of this id or address (or its erased form), locked until the transaction ends. */
  lock(
    em: EntityManager,
    siteId: number,
    by: { id: number } | { email: string },
  ): Promise<EmailSuppressionEntity | null> {
    const where = 'id' in by ? { siteId, id: by.id } : { siteId, email: In([by.email, erasedForm(by.email)]) };
    return em.findOne(EmailSuppressionEntity, { where, lock: { mode: 'pessimistic_write' } });
  }

  /** Why the address (or its erased form) is suppressed, a complaint first; null: it is not. */
  async reasonOf(em: EntityManager, siteId: number, email: string): Promise<SuppressionReason | null> {
    const rows = await em.find(EmailSuppressionEntity, {
      select: { reason: true },
      where: { siteId, email: In([email, erasedForm(email)]) },
    });
    return rows.find((r) => r.reason === 'complained')?.reason ?? rows[0]?.reason ?? null;
  }

  async remove(em: EntityManager, entry: EmailSuppressionEntity): Promise<void> {
    await sql(em, `DELETE FROM email_suppressions WHERE site_id = $1 AND id = $2`, [entry.siteId, entry.id]);
  }
}
