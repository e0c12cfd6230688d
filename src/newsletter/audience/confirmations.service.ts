import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { recordEvent } from '../../common/outbox/record-event';
import { SiteContext } from '../../common/tenancy/site-context';
import { SuppressionsService } from '../../email/email.service';
import { SubscriptionEntity } from '../entities/subscription.entity';
import { LinkKind, LinkToken, nonceMatches } from '../links/link-tokens';
import { NewsletterLinks } from '../links/newsletter-links.service';
import { NEWSLETTER_EVENTS } from '../newsletter.events';
import { ComplaintConsent } from './complaint-consent';
import { complainedAddress, expiredToken, invalidToken, LinkOutcome, usedToken } from './link-answers';
import { ListsService } from './lists.service';
import { cleanClient, ClientInfo, SubscriptionWriter } from './subscription-writer';

/** What opening or posting a confirmation link did: `confirmation_required` when it only showed what a press would confirm. */
export interface ConfirmAnswer extends LinkOutcome {
  result: 'confirmed' | 'confirmation_required';
}

const isReconsent = (token: string) => token.startsWith('r.');

/**
 * The confirmation links of the newsletter's mail (docs/newsletter.md, "Links and tokens"):
 * `c` links confirm when opened (GET or POST), as double opt-in does everywhere; `r` links, mailed
 * to an address that complained, only show a page when opened, and confirm (lifting the
 * complaint) only when that page's button posts the token (docs/deliverability.md, "Only the
 * person lifts a complaint"). Each is signed, expires and works once.
 */
@Injectable()
export class ConfirmationsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly lists: ListsService,
    private readonly writer: SubscriptionWriter,
    private readonly links: NewsletterLinks,
    private readonly suppressions: SuppressionsService,
    private readonly complaints: ComplaintConsent,
  ) {}

  /** A link opened (GET, HEAD: a person, a prefetch or a mail scanner alike). */
  async open(site: SiteContext, token: string, client: ClientInfo): Promise<ConfirmAnswer> {
    if (isReconsent(token)) return { result: 'confirmation_required', ...(await this.preview(site, token)) };
    return { result: 'confirmed', ...(await this.confirm(site, token, client)) };
  }

  /** A link's token posted: the re-consent page's button (a form), or an API client. */
  async press(site: SiteContext, token: string, client: ClientInfo): Promise<ConfirmAnswer> {
    const outcome = isReconsent(token)
      ? await this.reconsent(site, token, client)
      : await this.confirm(site, token, client);
    return { result: 'confirmed', ...outcome };
  }

  /** An ordinary confirmation: activates the pending memberships; never lifts a complaint. */
  private async confirm(site: SiteContext, token: string, rawClient: ClientInfo): Promise<LinkOutcome> {
    const client = cleanClient(rawClient);
    const claims = await this.claims(site, token, 'c');
    return this.dataSource.transaction(async (em) => {
      const sub = await this.lock(em, site, claims);
      // A scanner opens this link as readily as the person: it lifts no complaint, whenever one came.
      if (await this.complaints.hasComplained(em, site, sub)) throw complainedAddress();
      return this.activate(em, site, sub, client, { complaint: false });
    });
  }

  /** What the re-consent page shows: the address's lists. Reads only. */
  private async preview(site: SiteContext, token: string): Promise<LinkOutcome> {
    const claims = await this.claims(site, token, 'r');
    const em = this.dataSource.manager;
    const sub = await em.findOne(SubscriptionEntity, { where: { id: claims.subscriptionId, siteId: site.id } });
    if (!sub || !nonceMatches(claims, sub.confirmNonce)) throw usedToken();
    return { subscription: sub, lists: await this.lists.standingOf(em, site, sub.id) };
  }

  /** The re-consent page's button: the person's act, which alone lifts their complaint. */
  private async reconsent(site: SiteContext, token: string, rawClient: ClientInfo): Promise<LinkOutcome> {
    const client = cleanClient(rawClient);
    const claims = await this.claims(site, token, 'r');
    return this.dataSource.transaction(async (em) =>
      this.activate(em, site, await this.lock(em, site, claims), client, { complaint: true }),
    );
  }

  private async claims(site: SiteContext, token: string, kind: LinkKind): Promise<LinkToken> {
    const claims = await this.links.decode(site, token, kind);
    if (!claims) throw invalidToken();
    if ((claims.expiresAt ?? 0) * 1000 <= Date.now()) throw expiredToken();
    return claims;
  }

  /** The link's subscription, locked, while the link is its live one (else 410 `token_used`). */
  private async lock(em: EntityManager, site: SiteContext, claims: LinkToken): Promise<SubscriptionEntity> {
    const sub = await em.findOne(SubscriptionEntity, {
      where: { id: claims.subscriptionId, siteId: site.id },
      lock: { mode: 'pessimistic_write' },
    });
    if (!sub || !nonceMatches(claims, sub.confirmNonce)) throw usedToken();
    return sub;
  }

  /**
   * The pending memberships become active, with the consent evidence of this request. The
   * person's word lifts an operator's suppression too, and a complaint only with `complaint`
   * (the re-consent button); never a bounce (a fact about the mailbox, not a wish).
   */
  private async activate(
    em: EntityManager,
    site: SiteContext,
    sub: SubscriptionEntity,
    client: ClientInfo,
    act: { complaint: boolean },
  ): Promise<LinkOutcome> {
    const current = await this.writer.membershipsOf(em, sub.id);
    const pending = [...current.values()].filter((m) => m.status === 'pending').map((m) => m.listId);
    for (const listId of pending) await this.writer.setMembership(em, site, sub, listId, 'active');
    sub.confirmNonce = null;
    sub.consentAt = new Date();
    sub.consentIp = client.ip ?? sub.consentIp;
    sub.consentUserAgent = client.userAgent ?? sub.consentUserAgent;
    if (
      pending.length > 0 &&
      (sub.deliverability === 'suppressed' || (act.complaint && sub.deliverability === 'complained'))
    )
      sub.deliverability = 'deliverable';
    await em.save(sub);
    if (pending.length > 0) {
      await this.writer.unsuppress(em, site, sub.email, act);
      // The mail-wide suppression too: an operator's entry, or (act.complaint) a complaint.
      await this.suppressions.liftByPerson(em, site, sub.email, act);
      await recordEvent(em, site, NEWSLETTER_EVENTS.subscriptionConfirmed, { id: sub.id, listIds: pending });
      await this.writer.mailWelcome(em, site, sub, await this.lists.findMany(em, site, pending), true);
    }
    return { subscription: sub, lists: await this.lists.standingOf(em, site, sub.id) };
  }
}
