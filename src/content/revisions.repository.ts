import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { applyKeyset, CursorQueryDto, keysetPage, Page } from '../common/pagination/page';
import { ContentRevisionEntity } from './entities/content-revision.entity';

/** Every column but the snapshot: what a list of revisions shows. */
const SUMMARY_COLUMNS: Array<keyof ContentRevisionEntity> = [
  'id',
  'siteId',
  'contentId',
  'number',
  'action',
  'actorType',
  'actorId',
  'restoredFrom',
  'createdAt',
];

/** The revision list's query (docs/modules.md). */
@Injectable()
export class RevisionsRepository {
  constructor(@InjectRepository(ContentRevisionEntity) private readonly revisions: Repository<ContentRevisionEntity>) {}

  /** An item's revisions, newest first, without their snapshots. */
  async list(siteId: number, contentId: number, query: CursorQueryDto): Promise<Page<ContentRevisionEntity>> {
    const qb = this.revisions
      .createQueryBuilder('r')
      .select(SUMMARY_COLUMNS.map((c) => `r.${c}`))
      .where('r.content_id = :contentId AND r.site_id = :siteId', { contentId, siteId });
    const rows = await applyKeyset(qb, [{ expr: 'r.number', type: 'number' }], query).getMany();
    return keysetPage(rows, query.limit, (r) => [r.number]);
  }
}
