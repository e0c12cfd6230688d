import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { SitesService } from '../../account/sites.service';
import { ValidationProblem } from '../../common/errors/problems';
import { findInSiteOrFail, SiteContext } from '../../common/tenancy/site-context';
import { UserQueryDto } from '../../users/dto/user.dto';
import { UsersService } from '../../users/users.service';
import { BulkDto, BulkResultDto, SyncDto, SyncResultDto } from '../dto/bulk.dto';
import { NewsletterListEntity } from '../entities/newsletter-list.entity';
import { ListsService } from '../audience/lists.service';
import { SubscriptionsBulkRepository } from '../audience/subscriptions-bulk.repository';
import { SubscriptionsRepository } from '../audience/subscriptions.repository';

/** Subscriptions one bulk transaction takes. */
const BATCH = 1000;
/** A site user who opted in to the newsletter (set by the site through the users API). */
const OPTED_IN = (metadata: Record<string, unknown>) => metadata.newsletter === true;

/**
 * Mass writes over the audience (docs/newsletter.md): bulk actions over ids or a filter, one
 * transaction per batch of 1,000, and sync of a list to a set of addresses. They never
 * subscribe back an address that left a list, complained or is suppressed, and record no
 * per-subscription events (a bulk over a million rows would send a million webhooks): their
 * answer counts what they did.
 */
@Injectable()
export class BulkService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly repository: SubscriptionsRepository,
    private readonly writes: SubscriptionsBulkRepository,
    private readonly lists: ListsService,
    private readonly sites: SitesService,
    private readonly users: UsersService,
  ) {}

  async bulk(site: SiteContext, dto: BulkDto): Promise<BulkResultDto> {
    if ((dto.ids === undefined) === (dto.filter === undefined))
      throw new ValidationProblem([{ path: 'ids', message: 'give either ids or filter' }]);
    const needsLists = dto.action === 'add_to_lists' || dto.action === 'remove_from_lists';
    if (needsLists && dto.listIds === undefined)
      throw new ValidationProblem([{ path: 'listIds', message: `is required for ${dto.action}` }]);
    if (dto.action === 'set_deliverability' && dto.deliverability === undefined)
      throw new ValidationProblem([{ path: 'deliverability', message: 'is required for set_deliverability' }]);
    if (dto.listIds) await this.lists.requireMany(this.dataSource.manager, site, dto.listIds);
    const { settings } = await this.sites.profileOf(site.id);
    const suppress = settings.newsletter?.suppressOnDelete === true;
    const result: BulkResultDto = { matched: 0, changed: 0, skipped: 0, batches: 0 };
    const apply = async (ids: number[]) => {
      const changed = await this.dataSource.transaction((em) => this.applyBatch(em, site, dto, ids, suppress));
      result.matched += ids.length;
      result.changed += changed;
      result.batches += 1;
    };
    if (dto.ids) {
      // Only this site's subscriptions count as matched.
      await apply(await this.repository.idsMatching(site, { ids: dto.ids }, null, BATCH));
    } else {
      let before: number | null = null;
      for (;;) {
        const ids = await this.repository.idsMatching(site, dto.filter!, before, BATCH);
        if (ids.length === 0) break;
        await apply(ids);
        if (ids.length < BATCH) break;
        before = ids[ids.length - 1];
      }
    }
    result.skipped = result.matched - result.changed;
    return result;
  }

  private async applyBatch(
    em: EntityManager,
    site: SiteContext,
    dto: BulkDto,
    ids: number[],
    suppress: boolean,
  ): Promise<number> {
    switch (dto.action) {
      case 'unsubscribe':
        return (await this.writes.unsubscribe(em, site.id, ids, dto.listIds ?? null, dto.reason ?? null)).length;
      case 'delete':
        return (await this.writes.deleteMany(em, site.id, ids, suppress)).length;
      case 'set_deliverability':
        return (await this.writes.setDeliverability(em, site.id, ids, dto.deliverability!)).length;
      case 'add_to_lists':
        return (await this.writes.addToLists(em, site.id, ids, dto.listIds!, dto.consent === true)).length;
      case 'remove_from_lists':
        return (await this.writes.removeFromLists(em, site.id, ids, dto.listIds!)).length;
    }
  }

  /**
   * Makes a list's members exactly the given addresses (and, with `fromUsers`, the site users
   * who opted in): the missing join (`active` with consent, else `pending`, no mail), members
   * outside the set are unsubscribed from this list. Running it twice changes nothing more.
   */
  async sync(site: SiteContext, dto: SyncDto): Promise<SyncResultDto> {
    if (dto.emails === undefined && dto.fromUsers !== true)
      throw new ValidationProblem([{ path: 'emails', message: 'give emails or fromUsers' }]);
    const emails = new Set(dto.emails ?? []);
    if (dto.fromUsers) for (const email of await this.optedInUsers(site)) emails.add(email);
    const wanted = [...emails];
    return this.dataSource.transaction(async (em) => {
      const list = await findInSiteOrFail(em, NewsletterListEntity, site, dto.listId, 'List', { lock: true });
      const ids = wanted.length ? await this.writes.ensureSubscriptions(em, site.id, wanted, 'sync') : [];
      const before = await this.writes.membershipStates(em, list.id, ids);
      const added = await this.writes.addToLists(em, site.id, ids, [list.id], dto.consent === true);
      const outside = await this.writes.membersOutside(em, list.id, wanted);
      const unsubscribed = outside.length ? await this.writes.unsubscribe(em, site.id, outside, [list.id], 'sync') : [];
      // Pending is as asked only without consent: with it, a pending member left pending is one
      // that may not be activated (it complained or is suppressed): skipped.
      const asAsked = (status: string | undefined) =>
        status === 'active' || (status === 'pending' && dto.consent !== true);
      const unchanged = ids.filter((id) => !added.includes(id) && asAsked(before.get(id))).length;
      return {
        added: added.length,
        unsubscribed: unsubscribed.length,
        unchanged,
        skipped: wanted.length - added.length - unchanged,
      };
    });
  }

  /** The addresses of the site's active users with `metadata.newsletter` true, through their module. */
  private async optedInUsers(site: SiteContext): Promise<string[]> {
    const found: string[] = [];
    let cursor: string | undefined;
    for (;;) {
      const query = Object.assign(new UserQueryDto(), { limit: 100, status: 'active', cursor });
      const page = await this.users.list(site, query);
      for (const user of page.data) if (OPTED_IN(user.metadata)) found.push(user.email);
      if (!page.pagination.nextCursor) return found;
      cursor = page.pagination.nextCursor;
    }
  }
}
