import { Injectable } from '@nestjs/common';
import { Principal } from '../common/auth/principal';
import { SiteContext } from '../common/tenancy/site-context';
import { MediaView } from '../media/media-view';
import { MediaService } from '../media/media.service';
import { ContentRepository } from './content.repository';
import { ContentService, UpdateOptions } from './content.service';
import { CreateContentDto, UpdateContentDto } from './dto/content.dto';
import { ContentItemEntity } from './entities/content-item.entity';

/** A v1 page: the content item and its attachments as media (INTERFACE.md §2.1 `media`). */
export interface PageView {
  item: ContentItemEntity;
  media: MediaView[];
}

/**
 * The v1 pages routes over the content service (API.md §10): a page is a content item of any
 * type; v1 callers hold a key, so drafts are included.
 */
@Injectable()
export class PagesService {
  constructor(
    private readonly content: ContentService,
    private readonly repository: ContentRepository,
    private readonly media: MediaService,
  ) {}

  async create(site: SiteContext, principal: Principal, input: CreateContentDto): Promise<PageView> {
    const item = await this.content.create(site, principal, input, { attachmentsPath: 'attachment_ids' });
    return (await this.withMedia(site, [item]))[0];
  }

  async update(
    site: SiteContext,
    principal: Principal,
    id: number,
    input: UpdateContentDto,
    options: UpdateOptions,
  ): Promise<PageView> {
    const item = await this.content.update(site, principal, id, input, {
      ...options,
      attachmentsPath: 'attachment_ids',
    });
    return (await this.withMedia(site, [item]))[0];
  }

  /** API.md §10: digits are an id, `all` is every page of the site, anything else a slug. */
  async get(site: SiteContext, principal: Principal, idSlugOrAll: string): Promise<PageView | PageView[]> {
    if (idSlugOrAll === 'all') return this.withMedia(site, await this.repository.all(site));
    return (await this.withMedia(site, [await this.content.get(site, principal, idSlugOrAll)]))[0];
  }

  async list(site: SiteContext, limit: number, offset: number): Promise<{ pages: PageView[]; total: number }> {
    const { rows, total } = await this.repository.offsetPage(site, limit, offset);
    return { pages: await this.withMedia(site, rows), total };
  }

  async remove(site: SiteContext, id: number): Promise<number> {
    return (await this.content.remove(site, id)).id;
  }

  /** One media query for all the pages. Media deleted since it was attached is left out. */
  private async withMedia(site: SiteContext, items: ContentItemEntity[]): Promise<PageView[]> {
    const views = await this.media.viewsByIds(site, [...new Set(items.flatMap((i) => i.attachmentIds))]);
    const byId = new Map(views.map((v) => [v.id, v]));
    return items.map((item) => ({ item, media: item.attachmentIds.flatMap((id) => byId.get(id) ?? []) }));
  }
}
