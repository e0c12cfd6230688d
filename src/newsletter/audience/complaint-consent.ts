import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { RateLimitStore } from '../../common/rate-limit/rate-limit.store';
import { SiteContext } from '../../common/tenancy/site-context';
import { EmailService, SuppressionsService } from '../../email/email.service';
import { NewsletterListEntity } from '../entities/newsletter-list.entity';
import { SubscriptionEntity } from '../entities/subscription.entity';
import { SuppressionEntity } from '../entities/suppression.entity';
import { newNonce } from '../links/link-tokens';
import { NewsletterLinks } from '../links/newsletter-links.service';
import { RECONSENT_MAIL } from './newsletter-mail-types';
import { emailHash } from './subscription-writer';

const DAY_MS = 86_400_000;
/** Re-consent mails per address and site, per day: an address that complained is mailed as little as can be. */
const RECONSENT_MAILS_PER_DAY = 1;
/** The newsletter's own record of a complaint (newsletter_suppressions.reason). */
export const COMPLAINT_HASH_REASON = 'complaint';

/**
 * An address whose owner complained (docs/deliverability.md, "Only the person lifts a
 * complaint"). Only the person lifts it, by the one act a tenant cannot perform for them: pressing
 * the button of the page a re-consent link opens (a POST; a GET of the link never changes
 * anything, so a mail scanner opening it lifts nothing). That link (`r.…`) is only ever in the
 * fixed `newsletter.complaint_confirmation` mail (the site cannot reword it or make it load an
 * image carrying the link), on this server's own origin (never the site's `publicBaseUrl`, a host
 * the tenant runs), at most once a day per address.
 */
@Injectable()
export class ComplaintConsent {
  constructor(
    private readonly email: EmailService,
    private readonly suppressions: SuppressionsService,
    private readonly links: NewsletterLinks,
    private readonly limits: RateLimitStore,
  ) {}

  /**
   * The address's owner complained: its subscription says so, the newsletter's blocklist keeps it
   * (the complaint outlives a deleted subscription), or the email module's suppression does (the
   * complaint may answer any mail of the site). Whatever a key did to the subscription since.
   */
  async hasComplained(
    em: EntityManager,
    site: SiteContext,
    sub: Pick<SubscriptionEntity, 'email' | 'deliverability'>,
  ): Promise<boolean> {
    if (sub.deliverability === 'complained') return true;
    if ((await this.blockedBy(em, site, sub.email)) === COMPLAINT_HASH_REASON) return true;
    return (await this.suppressions.reasonOf(em, site, sub.email)) === 'complained';
  }

  /** Why the newsletter's own blocklist holds the address (`complaint`, `blocklist`, `deleted`), or null. */
  async blockedBy(em: EntityManager, site: SiteContext, email: string): Promise<string | null> {
    const row = await em.findOne(SuppressionEntity, { where: { siteId: site.id, emailHash: emailHash(email) } });
    return row?.reason ?? null;
  }

  /**
   * A complaint came in (in the report's transaction): the newsletter keeps it by the address's
   * hash, so no import, sync or bulk action adds the address again even once the subscription is
   * deleted, and the confirmation links already mailed stop working.
   */
  async recordComplaint(em: EntityManager, site: SiteContext, email: string): Promise<void> {
    await em.upsert(
      SuppressionEntity,
      { siteId: site.id, emailHash: emailHash(email), reason: COMPLAINT_HASH_REASON },
      ['siteId', 'emailHash'],
    );
    await em.update(SubscriptionEntity, { siteId: site.id, email }, { confirmNonce: null });
  }

  /**
   * The re-consent mail for these lists, with a new `r` link (the previous confirmation link
   * stops working). At most one a day per address and site: past it nothing is mailed and the
   * link already sent keeps working.
   */
  async mailReconsent(
    em: EntityManager,
    site: SiteContext,
    sub: SubscriptionEntity,
    lists: NewsletterListEntity[],
  ): Promise<void> {
    const decision = await this.limits.hit(
      `newsletter-reconsent:${site.id}:${emailHash(sub.email)}`,
      DAY_MS,
      RECONSENT_MAILS_PER_DAY,
      DAY_MS,
    );
    if (decision.blocked) return;
    const nonce = newNonce();
    sub.confirmNonce = nonce;
    await em.update(SubscriptionEntity, { id: sub.id }, { confirmNonce: nonce });
    const token = await this.links.confirmToken(em, site, sub, nonce, 'r');
    await this.email.send(em, site, {
      to: { email: sub.email },
      templateType: RECONSENT_MAIL,
      data: {
        listName: lists.map((l) => l.name).join(', '),
        confirmUrl: this.links.serverAbsolute(this.links.confirmPath(site, token)),
      },
      tags: ['newsletter', 'confirmation', 'complaint'],
      consent: true,
    });
  }
}
