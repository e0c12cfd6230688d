import { Injectable } from '@nestjs/common';
import { Principal } from '../common/auth/principal';
import { ValidationProblem } from '../common/errors/problems';
import { SiteContext } from '../common/tenancy/site-context';
import { ContentItem, ContentService } from '../content/content.service';
import { CreateContentDto, UpdateContentDto } from '../content/dto/content.dto';
import { MediaService, MediaView } from '../media/media.service';

/** A v1 page: the content item and its attachments as media (INTERFACE.md §2.1 `media`). */
export interface PageView {
  item: ContentItem;
  media: MediaView[];
}

/**
 * The v1 pages routes over the content service's public methods: a page is a
 * content item of any type; v1 callers hold a key, so drafts are included. What v1 says
 * differently (field names in errors, adding attachments) is translated here, not in content.
 */
@Injectable()
export class V1PagesService {
  constructor(
    private readonly content: ContentService,
    private readonly media: MediaService,
  ) {}

  async create(site: SiteContext, principal: Principal, input: CreateContentDto): Promise<PageView> {
    const item = await v1Paths(() => this.content.create(site, principal, input));
    return (await this.withMedia(site, [item]))[0];
  }

  /**
   * `append`: v1 `replace_attachments: false` adds the given attachments to the current ones
   * (read first, in the key's view; the update's own checks still apply).
   */
  async update(
    site: SiteContext,
    principal: Principal,
    id: number,
    input: UpdateContentDto,
    options: { append: boolean },
  ): Promise<PageView> {
    let dto = input;
    if (options.append && input.attachmentIds !== undefined) {
      const current = await this.content.get(site, principal, String(id));
      dto = { ...input, attachmentIds: [...new Set([...current.attachmentIds, ...input.attachmentIds])] };
    }
    const item = await v1Paths(() => this.content.update(site, principal, id, dto));
    return (await this.withMedia(site, [item]))[0];
  }

  /** API.md §10: digits are an id, `all` is every page of the site, anything else a slug. */
  async get(site: SiteContext, principal: Principal, idSlugOrAll: string): Promise<PageView | PageView[]> {
    if (idSlugOrAll === 'all') return this.withMedia(site, await this.content.all(site));
    return (await this.withMedia(site, [await this.content.get(site, principal, idSlugOrAll)]))[0];
  }

  async list(site: SiteContext, limit: number, offset: number): Promise<{ pages: PageView[]; total: number }> {
    const { rows, total } = await this.content.listByOffset(site, limit, offset);
    return { pages: await this.withMedia(site, rows), total };
  }

  async remove(site: SiteContext, id: number): Promise<number> {
    return (await this.content.remove(site, id)).id;
  }

  /** One media query for all the pages. Media deleted since it was attached is left out. */
  private async withMedia(site: SiteContext, items: ContentItem[]): Promise<PageView[]> {
    const views = await this.media.viewsByIds(site, [...new Set(items.flatMap((i) => i.attachmentIds))]);
    const byId = new Map(views.map((v) => [v.id, v]));
    return items.map((item) => ({ item, media: item.attachmentIds.flatMap((id) => byId.get(id) ?? []) }));
  }
}

/** v1 names the attachments field `attachment_ids` in its errors. */
async function v1Paths<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (!(err instanceof ValidationProblem) || !err.errors) throw err;
    throw new ValidationProblem(
      err.errors.map((e) => (e.path === 'attachmentIds' ? { ...e, path: 'attachment_ids' } : e)),
    );
  }
}
