import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import {
  applyKeysetShape,
  KeysetColumn,
  keysetPage,
  keysetParameters,
  keysetShape,
  Page,
} from '../../common/pagination/page';
import { ShapedReads } from '../../database/fast-read';
import { ListQueryDto } from '../dto/list.dto';
import { NewsletterListEntity } from '../entities/newsletter-list.entity';

const NEWEST: KeysetColumn[] = [{ expr: 'l.id', type: 'number' }];

/** The list reads, on the fast read path (docs/performance.md). */
@Injectable()
export class ListsRepository {
  private readonly listReads = new ShapedReads<NewsletterListEntity>();
  private readonly oneReads = new ShapedReads<NewsletterListEntity>();

  constructor(@InjectRepository(NewsletterListEntity) private readonly lists: Repository<NewsletterListEntity>) {}

  /** The site's lists, newest first; `visibility` filters them. */
  async list(siteId: number, query: ListQueryDto): Promise<Page<NewsletterListEntity>> {
    const params = { siteId, visibility: query.visibility, ...keysetParameters(NEWEST, query) };
    const shape = { ...keysetShape(query), visibility: Boolean(query.visibility) };
    const { entities } = await this.listReads.read(shape, params, (s) => {
      const qb = this.lists.createQueryBuilder('l').where('l.site_id = :siteId');
      if (s.visibility) qb.andWhere('l.visibility = :visibility');
      return applyKeysetShape(qb, NEWEST, s);
    });
    return keysetPage(entities, query.limit, (l) => [l.id]);
  }

  async find(siteId: number, id: number): Promise<NewsletterListEntity | undefined> {
    const { entities } = await this.oneReads.read({}, { siteId, id }, () =>
      this.lists.createQueryBuilder('l').where('l.site_id = :siteId').andWhere('l.id = :id').limit(1),
    );
    return entities[0];
  }
}
