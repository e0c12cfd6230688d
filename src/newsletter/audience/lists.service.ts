import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, In } from 'typeorm';
import { NotFoundProblem } from '../../common/errors/problems';
import { recordEvent } from '../../common/outbox/record-event';
import { Page } from '../../common/pagination/page';
import { findInSiteOrFail, SiteContext } from '../../common/tenancy/site-context';
import { CreateListDto, ListQueryDto, ListWithCounts, UpdateListDto } from '../dto/list.dto';
import { MembershipEntity } from '../entities/membership.entity';
import { NewsletterListEntity } from '../entities/newsletter-list.entity';
import { ListStanding } from './link-answers';
import { ListEventPayload, NEWSLETTER_EVENTS } from '../newsletter.events';
import { ListsRepository } from './lists.repository';
import { SubscriptionsRepository } from './subscriptions.repository';

const EDITABLE = ['name', 'description', 'doubleOptIn', 'visibility'] as const;

/** A site's mailing lists (docs/newsletter.md). Deleting one removes its memberships, never the subscribers. */
@Injectable()
export class ListsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly lists: ListsRepository,
    private readonly repository: SubscriptionsRepository,
  ) {}

  async list(site: SiteContext, query: ListQueryDto): Promise<Page<ListWithCounts>> {
    const page = await this.lists.list(site.id, query);
    const counts = await this.repository.listCounts(
      null,
      page.data.map((l) => l.id),
    );
    return { data: page.data.map((list) => ({ list, counts: counts.get(list.id)! })), pagination: page.pagination };
  }

  async get(site: SiteContext, id: number): Promise<ListWithCounts> {
    const list = await this.lists.find(site.id, id);
    if (!list) throw new NotFoundProblem('List');
    return this.withCounts(null, list);
  }

  create(site: SiteContext, dto: CreateListDto): Promise<ListWithCounts> {
    return this.dataSource.transaction(async (em) => {
      const list = await em.save(
        em.create(NewsletterListEntity, {
          siteId: site.id,
          name: dto.name,
          description: dto.description ?? '',
          doubleOptIn: dto.doubleOptIn ?? true,
          visibility: dto.visibility ?? 'public',
        }),
      );
      await recordEvent(em, site, NEWSLETTER_EVENTS.listCreated, listPayload(list));
      return { list, counts: { pending: 0, active: 0, unsubscribed: 0 } };
    });
  }

  /** A PATCH that changes nothing records no event. */
  update(site: SiteContext, id: number, dto: UpdateListDto): Promise<ListWithCounts> {
    return this.dataSource.transaction(async (em) => {
      const list = await findInSiteOrFail(em, NewsletterListEntity, site, id, 'List', { lock: true });
      let changed = false;
      for (const field of EDITABLE) {
        const value = dto[field];
        if (value === undefined || list[field] === value) continue;
        (list as unknown as Record<string, unknown>)[field] = value;
        changed = true;
      }
      if (!changed) return this.withCounts(em, list);
      const saved = await em.save(list);
      await recordEvent(em, site, NEWSLETTER_EVENTS.listUpdated, listPayload(saved));
      return this.withCounts(em, saved);
    });
  }

  /** The memberships go with the list (ON DELETE CASCADE); the subscriptions stay. */
  remove(site: SiteContext, id: number): Promise<void> {
    return this.dataSource.transaction(async (em) => {
      const list = await findInSiteOrFail(em, NewsletterListEntity, site, id, 'List', { lock: true });
      await em.delete(NewsletterListEntity, { id: list.id, siteId: site.id });
      await recordEvent(em, site, NEWSLETTER_EVENTS.listDeleted, listPayload(list));
    });
  }

  /** The site's lists among `ids`, for the subscribe and membership writes (missing ones are left out). */
  findMany(em: EntityManager, site: SiteContext, ids: number[]): Promise<NewsletterListEntity[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return em.find(NewsletterListEntity, { where: { siteId: site.id, id: In(ids) }, order: { id: 'ASC' } });
  }

  /** Where a subscription stands on each list it has a membership of, with the lists' names. */
  async standingOf(em: EntityManager, site: SiteContext, subscriptionId: number): Promise<ListStanding[]> {
    const memberships = await em.find(MembershipEntity, { where: { subscriptionId } });
    const status = new Map(memberships.map((m) => [m.listId, m.status]));
    const lists = await this.findMany(em, site, [...status.keys()]);
    return lists.map((l) => ({ listId: l.id, name: l.name, status: status.get(l.id)! }));
  }

  /** Fails with a 404 naming the first id that is not a list of the site. */
  async requireMany(em: EntityManager, site: SiteContext, ids: number[]): Promise<NewsletterListEntity[]> {
    const found = await this.findMany(em, site, ids);
    const missing = ids.find((id) => !found.some((l) => l.id === id));
    if (missing !== undefined) throw new NotFoundProblem(`List ${missing}`);
    return found;
  }

  private async withCounts(em: EntityManager | null, list: NewsletterListEntity): Promise<ListWithCounts> {
    const counts = await this.repository.listCounts(em, [list.id]);
    return { list, counts: counts.get(list.id)! };
  }
}

function listPayload(l: NewsletterListEntity): ListEventPayload {
  return { id: l.id, name: l.name, doubleOptIn: l.doubleOptIn, visibility: l.visibility };
}
