import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import {
  applyKeysetShape,
  KeysetColumn,
  keysetPage,
  keysetParameters,
  KeysetShape,
  keysetShape,
  Page,
} from '../common/pagination/page';
import { SiteContext } from '../common/tenancy/site-context';
import { ShapedReads } from '../database/fast-read';
import { SampleThingQueryDto } from './dto/sample-thing.dto';
import { SampleThingEntity } from './entities/sample-thing.entity';

/** Lists go newest first: created_at, then id. */
const NEWEST_FIRST: KeysetColumn[] = [
  { expr: 'x.created_at', type: 'timestamp' },
  { expr: 'x.id', type: 'number' },
];

/** What selects a list's SQL: each filter present or not, and the page. */
interface ListShape extends KeysetShape {
  status: boolean;
  createdFrom: boolean;
  createdTo: boolean;
}

/**
 * The sample things' reads, on the fast path (docs/performance.md): one prepared statement per
 * shape. Indexes: (site_id, created_at, id) for a key's list, (site_id, status, created_at, id)
 * for the published one, (site_id, slug) for a get by slug.
 */
@Injectable()
export class SampleThingsRepository {
  private readonly listReads = new ShapedReads<SampleThingEntity>();
  private readonly oneReads = new ShapedReads<SampleThingEntity>();

  constructor(@InjectRepository(SampleThingEntity) private readonly things: Repository<SampleThingEntity>) {}

  /** The site's sample things, newest first; without drafts only the published ones. */
  async list(site: SiteContext, query: SampleThingQueryDto, withDrafts: boolean): Promise<Page<SampleThingEntity>> {
    if (!withDrafts && query.status !== undefined && query.status !== 'published')
      return keysetPage([], query.limit, () => []);
    const status = withDrafts ? query.status : 'published';
    const params = {
      siteId: site.id,
      status,
      createdFrom: query.createdFrom,
      createdTo: query.createdTo,
      ...keysetParameters(NEWEST_FIRST, query),
    };
    const shape: ListShape = {
      ...keysetShape(query),
      status: status !== undefined,
      createdFrom: query.createdFrom !== undefined,
      createdTo: query.createdTo !== undefined,
    };
    const { entities } = await this.listReads.read(shape, params, (s) => {
      const qb = this.things.createQueryBuilder('x').where('x.site_id = :siteId');
      if (s.status) qb.andWhere('x.status = :status');
      if (s.createdFrom) qb.andWhere('x.created_at >= :createdFrom');
      if (s.createdTo) qb.andWhere('x.created_at < :createdTo');
      return applyKeysetShape(qb, NEWEST_FIRST, s);
    });
    return keysetPage(entities, query.limit, (x) => [x.createdAt.toISOString(), x.id]);
  }

  /** One by id or slug (all digits is an id); without drafts only a published one. */
  async find(site: SiteContext, idOrSlug: string | number, withDrafts: boolean): Promise<SampleThingEntity | null> {
    const byId = typeof idOrSlug === 'number' || /^\d+$/.test(idOrSlug);
    const id = byId ? Number(idOrSlug) : undefined;
    if (byId && !Number.isSafeInteger(id)) return null;
    const { entities } = await this.oneReads.read(
      { byId, withDrafts },
      { siteId: site.id, id, slug: idOrSlug },
      (s) => {
        const qb = this.things.createQueryBuilder('x').where('x.site_id = :siteId').limit(1);
        qb.andWhere(s.byId ? 'x.id = :id' : 'x.slug = :slug');
        if (!s.withDrafts) qb.andWhere("x.status = 'published'");
        return qb;
      },
    );
    return entities[0] ?? null;
  }
}
