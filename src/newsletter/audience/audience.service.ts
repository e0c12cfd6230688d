import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { TooManyRequestsProblem, ValidationProblem } from '../../common/errors/problems';
import { RateLimitStore } from '../../common/rate-limit/rate-limit.store';
import { recordEvent } from '../../common/outbox/record-event';
import { SiteContext } from '../../common/tenancy/site-context';
import { NewsletterConfig } from '../newsletter.config';
import { SubscribeDto, UnsubscribeDto } from '../dto/public.dto';
import { MembershipStatus } from '../entities/membership.entity';
import { NewsletterListEntity } from '../entities/newsletter-list.entity';
import { SubscriptionEntity } from '../entities/subscription.entity';
import { LinkToken, nonceMatches } from '../links/link-tokens';
import { ComplaintConsent } from './complaint-consent';
import { invalidToken, LinkOutcome } from './link-answers';
import { ListsService } from './lists.service';
import { canMove } from './membership-status';
import { NEWSLETTER_EVENTS } from '../newsletter.events';
import { NewsletterLinks } from '../links/newsletter-links.service';
import { cleanClient, ClientInfo, SubscriptionWriter } from './subscription-writer';

export type { LinkOutcome, ListStanding } from './link-answers';

const HOUR_MS = 3600_000;

/**
 * What people do themselves (docs/newsletter.md): subscribe from a form (confirming: confirmations.service.ts),
 * leave from a link. Nothing here tells whether an address was known: the answers and the work
 * are the same either way.
 */
@Injectable()
export class AudienceService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly lists: ListsService,
    private readonly writer: SubscriptionWriter,
    private readonly links: NewsletterLinks,
    private readonly limits: RateLimitStore,
    private readonly config: NewsletterConfig,
    private readonly complaints: ComplaintConsent,
  ) {}

  /** Answers whether the lists need a confirmation (from the lists alone, never the address). */
  async subscribe(
    site: SiteContext,
    dto: SubscribeDto,
    rawClient: ClientInfo,
  ): Promise<{ confirmationRequired: boolean }> {
    const client = cleanClient(rawClient);
    const lists = await this.lists.findMany(this.dataSource.manager, site, dto.lists);
    const publicLists = lists.filter((l) => l.visibility === 'public');
    if (publicLists.length !== new Set(dto.lists).size)
      throw new ValidationProblem([{ path: 'lists', message: 'must name public lists of this site' }]);
    const confirmationRequired = publicLists.some((l) => l.doubleOptIn);
    // A filled honeypot: a bot. Same answer, nothing done.
    if (dto.website !== undefined && dto.website.trim() !== '') return { confirmationRequired };
    await this.limitIp(site, client);
    // Past the address's hourly share nothing is done, and the answer is the same.
    const emailKey = createHash('sha256').update(dto.email).digest('base64url');
    const perEmail = await this.limits.hit(
      `newsletter-email:${site.id}:${emailKey}`,
      HOUR_MS,
      this.config.NEWSLETTER_SUBSCRIBE_EMAIL_HOURLY_LIMIT,
      HOUR_MS,
    );
    if (perEmail.blocked) return { confirmationRequired };
    await this.dataSource.transaction((em) => this.applySubscribe(em, site, dto, publicLists, client));
    return { confirmationRequired };
  }

  private async applySubscribe(
    em: EntityManager,
    site: SiteContext,
    dto: SubscribeDto,
    lists: NewsletterListEntity[],
    client: ClientInfo,
  ): Promise<void> {
    const { subscription: sub, created } = await this.writer.findOrCreate(em, site, dto.email, 'form');
    // An address that complained joins only by the re-consent page's button (complaint-consent.ts),
    // one suppressed or on the blocklist only by confirming, whatever the list says.
    const complained = await this.complaints.hasComplained(em, site, sub);
    // The complaint came before this subscription (another mail of the site), or a key moved it.
    if (complained && sub.deliverability !== 'suppressed') sub.deliverability = 'complained';
    const mustConfirm =
      complained ||
      sub.deliverability === 'suppressed' ||
      (await this.complaints.blockedBy(em, site, sub.email)) !== null;
    // A known address keeps what it has: only a missing name and new attributes are added.
    if (!sub.name && dto.name) sub.name = dto.name;
    if (dto.attributes) sub.attributes = { ...dto.attributes, ...sub.attributes };
    sub.consentAt = new Date();
    sub.consentIp = client.ip;
    sub.consentUserAgent = client.userAgent;
    sub.consentListIds = lists.map((l) => l.id);
    sub.consentWording = dto.consentText ?? null;
    await em.save(sub);
    if (created)
      await recordEvent(em, site, NEWSLETTER_EVENTS.subscriptionCreated, {
        id: sub.id,
        source: sub.source,
        listIds: lists.map((l) => l.id),
      });
    const current = await this.writer.membershipsOf(em, sub.id);
    const toConfirm: NewsletterListEntity[] = [];
    const activated: NewsletterListEntity[] = [];
    for (const list of lists) {
      const from = current.get(list.id)?.status;
      if (from === 'active') continue;
      const to: MembershipStatus = list.doubleOptIn || mustConfirm ? 'pending' : 'active';
      if (from !== undefined && !canMove('person', from, to)) continue;
      if (from !== to) await this.writer.setMembership(em, site, sub, list.id, to);
      (to === 'pending' ? toConfirm : activated).push(list);
    }
    // Nothing to lift here: an address with a suppression or on the blocklist confirms first.
    if (activated.length > 0) {
      await recordEvent(em, site, NEWSLETTER_EVENTS.subscriptionConfirmed, {
        id: sub.id,
        listIds: activated.map((l) => l.id),
      });
      await this.writer.mailWelcome(em, site, sub, activated, false);
    }
    if (toConfirm.length === 0) return;
    if (complained) await this.complaints.mailReconsent(em, site, sub, toConfirm);
    else await this.writer.mailConfirmation(em, site, sub, toConfirm);
  }

  /**
   * Leaves one list or all, by the token of a mail link (also an RFC 8058 one-click post).
   * Idempotent: leaving again, or by the link of an address since deleted, answers the same.
   */
  /**
   * Leaves lists by a mail link's token; or, for the site's own key only (its "manage my
   * subscription" page), by the address itself: anonymous callers must hold the token.
   */
  async unsubscribe(
    site: SiteContext,
    dto: UnsubscribeDto,
    queryToken: string | undefined,
    byKey = false,
  ): Promise<LinkOutcome> {
    const token = dto.token ?? queryToken;
    if (token === undefined) {
      if (!byKey || dto.email === undefined)
        throw new ValidationProblem([
          { path: 'token', message: byKey ? 'is required, or `email` with the site’s key' : 'is required' },
        ]);
      const email = dto.email;
      return this.dataSource.transaction(async (em) => {
        const sub = await em.findOne(SubscriptionEntity, {
          where: { siteId: site.id, email },
          lock: { mode: 'pessimistic_write' },
        });
        // Like a link of an address since deleted: nothing to leave, 200.
        if (!sub) return { subscription: null, lists: [] };
        return this.leave(em, site, sub, dto, 'operator');
      });
    }
    const claims = await this.links.decode(site, token, 'm');
    if (!claims) throw invalidToken();
    return this.dataSource.transaction(async (em) => {
      const sub = await this.lockSubscription(em, site, claims);
      if (!sub || !nonceMatches(claims, sub.manageNonce)) return { subscription: null, lists: [] };
      if (dto.email !== undefined && dto.email !== sub.email) throw invalidToken();
      return this.leave(em, site, sub, dto, 'person');
    });
  }

  private async leave(
    em: EntityManager,
    site: SiteContext,
    sub: SubscriptionEntity,
    dto: UnsubscribeDto,
    by: 'person' | 'operator',
  ): Promise<LinkOutcome> {
    const oneClick = dto['List-Unsubscribe'] === 'One-Click';
    const current = await this.writer.membershipsOf(em, sub.id);
    const leaving = [...current.values()]
      .filter((m) => m.status !== 'unsubscribed')
      .filter((m) => oneClick || dto.all === true || dto.listId === undefined || m.listId === dto.listId)
      .map((m) => m.listId);
    const reason = dto.reason ?? (oneClick ? 'one-click' : null);
    for (const listId of leaving) await this.writer.setMembership(em, site, sub, listId, 'unsubscribed', reason);
    if (leaving.length > 0)
      await recordEvent(em, site, NEWSLETTER_EVENTS.subscriptionUnsubscribed, {
        id: sub.id,
        listIds: leaving,
        by,
        reason,
      });
    return { subscription: sub, lists: await this.lists.standingOf(em, site, sub.id) };
  }

  /** What the preferences page shows: the address and its lists (null: the link is no longer valid). */
  async preferences(site: SiteContext, token: string): Promise<LinkOutcome> {
    const claims = await this.links.decode(site, token, 'm');
    if (!claims) throw invalidToken();
    return this.dataSource.transaction(async (em) => {
      const sub = await em.findOne(SubscriptionEntity, { where: { id: claims.subscriptionId, siteId: site.id } });
      if (!sub || !nonceMatches(claims, sub.manageNonce)) return { subscription: null, lists: [] };
      return { subscription: sub, lists: await this.lists.standingOf(em, site, sub.id) };
    });
  }

  private lockSubscription(em: EntityManager, site: SiteContext, claims: LinkToken) {
    return em.findOne(SubscriptionEntity, {
      where: { id: claims.subscriptionId, siteId: site.id },
      lock: { mode: 'pessimistic_write' },
    });
  }

  /** Subscribes per client IP and site, per hour, shared by instances (429 past it). */
  private async limitIp(site: SiteContext, client: ClientInfo): Promise<void> {
    if (!client.ip) return;
    const d = await this.limits.hit(
      `newsletter-ip:${site.id}:${client.ip}`,
      HOUR_MS,
      this.config.NEWSLETTER_SUBSCRIBE_IP_HOURLY_LIMIT,
      HOUR_MS,
    );
    if (d.blocked) throw new TooManyRequestsProblem(d.retryAfter);
  }
}
