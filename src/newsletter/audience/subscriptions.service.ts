import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { SitesService } from '../../account/sites.service';
import { ConflictProblem, NotFoundProblem, ValidationProblem } from '../../common/errors/problems';
import { recordEvent } from '../../common/outbox/record-event';
import { Page } from '../../common/pagination/page';
import { findInSiteOrFail, SiteContext } from '../../common/tenancy/site-context';
import { ChangeStatusDto, ListMembershipDto, SubscriptionQueryDto, SubscriptionView } from '../dto/subscription.dto';
import { SubscriptionEntity } from '../entities/subscription.entity';
import { ListsService } from './lists.service';
import { canMove } from './membership-status';
import { NEWSLETTER_EVENTS } from '../newsletter.events';
import { SubscriptionsBulkRepository } from './subscriptions-bulk.repository';
import { SubscriptionsRepository } from './subscriptions.repository';
import { SubscriptionWriter } from './subscription-writer';
import { ComplaintConsent } from './complaint-consent';

export { DELIVERABILITIES, type Deliverability } from '../entities/subscription.entity';

const forbidden = (detail: string) => new ConflictProblem('transition_forbidden', detail);
/** The deliverabilities a key may give an address whose owner complained. */
const HOLDS_A_COMPLAINT: ReadonlySet<string> = new Set(['complained', 'suppressed']);

/**
 * What operators do with a key (docs/newsletter.md): read the audience, delete a subscriber,
 * move memberships and deliverability within the allowed moves. Operators never subscribe anyone
 * back who left: only the person does.
 */
@Injectable()
export class SubscriptionsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly repository: SubscriptionsRepository,
    private readonly bulk: SubscriptionsBulkRepository,
    private readonly lists: ListsService,
    private readonly writer: SubscriptionWriter,
    private readonly sites: SitesService,
    private readonly complaints: ComplaintConsent,
  ) {}

  list(site: SiteContext, query: SubscriptionQueryDto): Promise<Page<SubscriptionView>> {
    return this.repository.list(site, query);
  }

  async get(site: SiteContext, id: number): Promise<SubscriptionView> {
    const found = await this.repository.find(site, { id });
    if (!found) throw new NotFoundProblem('Subscription');
    return found;
  }

  async byEmail(site: SiteContext, email: string): Promise<SubscriptionView> {
    const found = await this.repository.find(site, { email });
    if (!found) throw new NotFoundProblem('Subscription');
    return found;
  }

  /**
   * Deletes the subscription and its memberships: the personal data goes. With the site's
   * `newsletter.suppressOnDelete`, a hash of the address stays so no import adds it again.
   */
  remove(site: SiteContext, id: number): Promise<void> {
    return this.dataSource.transaction(async (em) => {
      const sub = await findInSiteOrFail(em, SubscriptionEntity, site, id, 'Subscription', { lock: true });
      const { settings } = await this.sites.profileOf(site.id, em);
      await this.bulk.deleteMany(em, site.id, [sub.id], settings.newsletter?.suppressOnDelete === true);
      await recordEvent(em, site, NEWSLETTER_EVENTS.subscriptionDeleted, { id: sub.id });
    });
  }

  /**
   * Joins and leaves lists. A join with consent is `active` at once; without, `pending`, and a
   * confirmation is mailed. Joining a list the person left is a 409 (only they come back); leaving
   * removes a pending or active membership (an `unsubscribed` one stays as the person's word).
   */
  listMembership(site: SiteContext, id: number, dto: ListMembershipDto): Promise<SubscriptionView> {
    const add = dto.add ?? [];
    const remove = dto.remove ?? [];
    if (add.length === 0 && remove.length === 0)
      throw new ValidationProblem([{ path: 'add', message: 'add or remove at least one list' }]);
    if (add.some((l) => remove.includes(l)))
      throw new ValidationProblem([{ path: 'remove', message: 'must not name a list of add' }]);
    return this.dataSource.transaction(async (em) => {
      const sub = await findInSiteOrFail(em, SubscriptionEntity, site, id, 'Subscription', { lock: true });
      const adding = await this.lists.requireMany(em, site, add);
      await this.lists.requireMany(em, site, remove);
      const current = await this.writer.membershipsOf(em, sub.id);
      const consent = dto.consent === true;
      if (
        adding.length > 0 &&
        (sub.deliverability === 'suppressed' || (await this.complaints.hasComplained(em, site, sub)))
      )
        throw forbidden(
          `The address is ${sub.deliverability === 'suppressed' ? 'suppressed' : 'complained'}: only the person can subscribe it again`,
        );
      const activated: number[] = [];
      const toConfirm = [];
      for (const list of adding) {
        const from = current.get(list.id)?.status;
        const to = consent ? 'active' : 'pending';
        if (from === 'active') continue;
        if (from !== undefined && !canMove(consent ? 'operator-with-consent' : 'operator', from, to))
          throw forbidden(`The subscriber left list ${list.id}: only they can join it again`);
        if (from === to) {
          if (to === 'pending') toConfirm.push(list);
          continue;
        }
        await this.writer.setMembership(em, site, sub, list.id, to);
        if (to === 'active') activated.push(list.id);
        else toConfirm.push(list);
      }
      if (remove.length > 0) await this.bulk.removeFromLists(em, site.id, [sub.id], remove);
      if (consent && adding.length > 0) {
        sub.consentAt = new Date();
        sub.consentIp = null;
        sub.consentUserAgent = null;
        sub.consentListIds = adding.map((l) => l.id);
        sub.consentWording = dto.consentWording ?? null;
        await em.save(sub);
      }
      if (activated.length > 0)
        await recordEvent(em, site, NEWSLETTER_EVENTS.subscriptionConfirmed, { id: sub.id, listIds: activated });
      if (toConfirm.length > 0) await this.writer.mailConfirmation(em, site, sub, toConfirm);
      return this.view(em, sub);
    });
  }

  /**
   * Moves memberships (to `unsubscribed` only) and the deliverability, with a reason; anything
   * else is a 409 with nothing changed. `complained` moves only to `suppressed`.
   */
  changeStatus(site: SiteContext, id: number, dto: ChangeStatusDto): Promise<SubscriptionView> {
    if (dto.status === undefined && dto.deliverability === undefined)
      throw new ValidationProblem([{ path: 'status', message: 'give status or deliverability' }]);
    if (dto.listIds !== undefined && dto.status === undefined)
      throw new ValidationProblem([{ path: 'listIds', message: 'goes with status' }]);
    return this.dataSource.transaction(async (em) => {
      const sub = await findInSiteOrFail(em, SubscriptionEntity, site, id, 'Subscription', { lock: true });
      if (dto.deliverability !== undefined && dto.deliverability !== sub.deliverability) {
        // Whatever the subscription says now (a key may have moved it to `suppressed` before): while
        // the person's complaint stands, the address stays `complained` or `suppressed`.
        if (!HOLDS_A_COMPLAINT.has(dto.deliverability) && (await this.complaints.hasComplained(em, site, sub)))
          throw forbidden('A complaint is lifted only by the person, from the page of the re-consent mail');
        sub.deliverability = dto.deliverability;
        await em.save(sub);
      }
      if (dto.status !== undefined) {
        const current = await this.writer.membershipsOf(em, sub.id);
        const scope = dto.listIds ?? [...current.keys()];
        const moved: number[] = [];
        for (const listId of scope) {
          const from = current.get(listId)?.status;
          if (from === undefined) throw new NotFoundProblem(`Membership of list ${listId}`);
          if (!canMove('operator', from, dto.status))
            throw forbidden(`A membership cannot move from ${from} to ${dto.status} by an operator`);
          if (from === dto.status) continue;
          await this.writer.setMembership(em, site, sub, listId, dto.status, dto.reason);
          moved.push(listId);
        }
        if (moved.length > 0)
          await recordEvent(em, site, NEWSLETTER_EVENTS.subscriptionUnsubscribed, {
            id: sub.id,
            listIds: moved,
            by: 'operator',
            reason: dto.reason,
          });
      }
      return this.view(em, sub);
    });
  }

  /** Erases a person's subscription (the users module's erasure): by address, in its transaction. */
  eraseByEmail(em: EntityManager, site: SiteContext, email: string): Promise<number> {
    return this.repository.deleteByEmail(em, site.id, email);
  }

  private async view(em: EntityManager, sub: SubscriptionEntity): Promise<SubscriptionView> {
    const fresh = await em.findOneByOrFail(SubscriptionEntity, { id: sub.id });
    return { subscription: fresh, memberships: await this.repository.memberships(em, sub.id) };
  }
}
