import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';
import { Principal } from '../common/auth/principal';
import { NotFoundProblem } from '../common/errors/problems';
import { CursorQueryDto, Page } from '../common/pagination/page';
import { findInSiteOrFail, SiteContext } from '../common/tenancy/site-context';
import { RESTORED_FIELDS, snapshotOf } from './content-snapshot';
import { actorOf, ContentWriter } from './content-writer';
import { ContentItemEntity } from './entities/content-item.entity';
import { ContentRevisionEntity } from './entities/content-revision.entity';
import { PublicContentCache } from './public-content.cache';
import { RevisionsRepository } from './revisions.repository';

/** The history of an item: append-only; a restore is one more revision. */
@Injectable()
export class RevisionsService {
  constructor(
    private readonly dataSource: DataSource,
    @InjectRepository(ContentRevisionEntity) private readonly revisions: Repository<ContentRevisionEntity>,
    private readonly repository: RevisionsRepository,
    private readonly writer: ContentWriter,
    private readonly cache: PublicContentCache,
  ) {}

  /** Newest first, without the snapshots. */
  async list(site: SiteContext, contentId: number, query: CursorQueryDto): Promise<Page<ContentRevisionEntity>> {
    await findInSiteOrFail(this.dataSource.manager, ContentItemEntity, site, contentId, 'Content');
    return this.repository.list(site.id, contentId, query);
  }

  async get(site: SiteContext, contentId: number, revisionId: number): Promise<ContentRevisionEntity> {
    const found = await this.revisions.findOneBy({ id: revisionId, contentId, siteId: site.id });
    if (!found) throw new NotFoundProblem('Revision');
    return found;
  }

  /**
   * Brings back the edited fields of a revision (not the status or dates: restoring never
   * publishes or unpublishes) as a new revision. History is never rewritten.
   */
  restore(site: SiteContext, principal: Principal, contentId: number, revisionId: number): Promise<ContentItemEntity> {
    return this.cache.writing(site.id, () =>
      this.dataSource.transaction(async (em) => {
        const item = await findInSiteOrFail(em, ContentItemEntity, site, contentId, 'Content', { lock: true });
        const revision = await em.findOneBy(ContentRevisionEntity, {
          id: revisionId,
          contentId: item.id,
          siteId: site.id,
        });
        if (!revision) throw new NotFoundProblem('Revision');
        const before = snapshotOf(item);
        const old = revision.snapshot;
        const slug =
          old.slug === item.slug
            ? old.slug
            : await this.writer.slugFor(em, site, { slug: old.slug, title: old.title, type: old.type }, item.id);
        // Media deleted since then cannot come back; the rest of the attachments do.
        const attachmentIds = await this.writer.attachments(em, site, old.attachmentIds, { dropMissing: true });
        for (const field of RESTORED_FIELDS) (item as unknown as Record<string, unknown>)[field] = old[field];
        Object.assign(item, { slug, attachmentIds });
        return this.writer.commit(em, site, item, {
          action: 'restored',
          actor: actorOf(principal),
          before,
          restoredFrom: revision.number,
        });
      }),
    );
  }
}
