import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import { EntityManager, Not } from 'typeorm';
import { SitesService } from '../../account/sites.service';
import { SiteContext } from '../../common/tenancy/site-context';
import { EmailService } from '../../email/email.service';
import { MembershipEntity } from '../entities/membership.entity';
import { NewsletterListEntity } from '../entities/newsletter-list.entity';
import { SubscriptionEntity } from '../entities/subscription.entity';
import { SuppressionEntity } from '../entities/suppression.entity';
import { newNonce } from '../links/link-tokens';
import { CONFIRMATION_MAIL, WELCOME_MAIL } from './newsletter-mail-types';
import { NewsletterLinks } from '../links/newsletter-links.service';
import { SubscriptionsRepository } from './subscriptions.repository';

/** Who a request came from, as the server saw them (consent evidence). */
export interface ClientInfo {
  ip: string | null;
  userAgent: string | null;
}

export const USER_AGENT_MAX = 500;

/** hex SHA-256 of a normalised address: what a suppression keeps. */
export function emailHash(email: string): string {
  return createHash('sha256').update(email, 'utf8').digest('hex');
}

/** Behind a proxy trusted with `true`, req.ip may be any text: only an address is kept (inet). */
export function cleanClient(client: ClientInfo): ClientInfo {
  return {
    ip: client.ip !== null && isIP(client.ip) !== 0 ? client.ip : null,
    userAgent: client.userAgent === null ? null : client.userAgent.slice(0, USER_AGENT_MAX),
  };
}

/**
 * The writes the public routes and the operator routes share, each in the caller's transaction:
 * finding or making a subscription, moving memberships, and queueing the confirmation and
 * welcome mail through the email module (they leave only if the transaction commits).
 */
@Injectable()
export class SubscriptionWriter {
  constructor(
    private readonly email: EmailService,
    private readonly sites: SitesService,
    private readonly links: NewsletterLinks,
    private readonly subscriptions: SubscriptionsRepository,
  ) {}

  /** The subscription of `email`, locked; made (source `source`) when missing. */
  async findOrCreate(
    em: EntityManager,
    site: SiteContext,
    email: string,
    source: string,
  ): Promise<{ subscription: SubscriptionEntity; created: boolean }> {
    const created = await this.subscriptions.insertIfMissing(em, site.id, email, source, newNonce());
    const subscription = await em.findOneOrFail(SubscriptionEntity, {
      where: { siteId: site.id, email },
      lock: { mode: 'pessimistic_write' },
    });
    return { subscription, created };
  }

  async membershipsOf(em: EntityManager, subscriptionId: number): Promise<Map<number, MembershipEntity>> {
    const rows = await em.find(MembershipEntity, { where: { subscriptionId } });
    return new Map(rows.map((m) => [m.listId, m]));
  }

  /** Sets a membership's status (made when missing), with the times and reason it moved. */
  async setMembership(
    em: EntityManager,
    site: SiteContext,
    sub: SubscriptionEntity,
    listId: number,
    status: MembershipEntity['status'],
    reason: string | null = null,
  ): Promise<void> {
    const now = new Date();
    await em.upsert(
      MembershipEntity,
      {
        subscriptionId: sub.id,
        listId,
        siteId: site.id,
        status,
        reason,
        updatedAt: now,
        ...(status === 'active' ? { subscribedAt: now } : {}),
        ...(status === 'unsubscribed' ? { unsubscribedAt: now } : {}),
      },
      ['subscriptionId', 'listId'],
    );
  }

  /**
   * The person's own consent clears the newsletter's blocklist entry of their address; a
   * complaint's (`complaint`) only with `act.complaint`, the re-consent button (complaint-consent.ts).
   */
  async unsuppress(em: EntityManager, site: SiteContext, email: string, act: { complaint: boolean }): Promise<void> {
    await em.delete(SuppressionEntity, {
      siteId: site.id,
      emailHash: emailHash(email),
      ...(act.complaint ? {} : { reason: Not('complaint') }),
    });
  }

  /**
   * A new confirmation link (the previous one stops working), mailed for these lists. Anyone may
   * subscribe any address, so the mail carries nothing the subscriber wrote: no name, not even in
   * the To header.
   */
  async mailConfirmation(
    em: EntityManager,
    site: SiteContext,
    sub: SubscriptionEntity,
    lists: NewsletterListEntity[],
  ): Promise<void> {
    const nonce = newNonce();
    sub.confirmNonce = nonce;
    await em.update(SubscriptionEntity, { id: sub.id }, { confirmNonce: nonce });
    const { settings } = await this.sites.profileOf(site.id, em);
    const token = await this.links.confirmToken(em, site, sub, nonce);
    await this.email.send(em, site, {
      to: { email: sub.email },
      templateType: CONFIRMATION_MAIL,
      data: {
        listName: lists.map((l) => l.name).join(', '),
        confirmUrl: this.links.absolute(this.links.confirmPath(site, token), settings.publicBaseUrl),
      },
      tags: ['newsletter', 'confirmation'],
      consent: true,
    });
  }

  /**
   * The welcome mail, with the preferences link. The subscriber's name is in it only when the
   * address was just confirmed (`confirmed`): a single opt-in welcome goes to an address nobody
   * proved, and carries nothing the subscriber wrote.
   */
  async mailWelcome(
    em: EntityManager,
    site: SiteContext,
    sub: SubscriptionEntity,
    lists: NewsletterListEntity[],
    confirmed: boolean,
  ): Promise<void> {
    if (lists.length === 0) return;
    const { settings } = await this.sites.profileOf(site.id, em);
    const token = await this.links.manageToken(site, sub, em);
    const name = confirmed && sub.name ? sub.name : undefined;
    await this.email.send(em, site, {
      to: { email: sub.email, ...(name ? { name } : {}) },
      templateType: WELCOME_MAIL,
      data: {
        listNames: lists.map((l) => l.name),
        preferencesUrl: this.links.absolute(this.links.preferencesPath(site, token), settings.publicBaseUrl),
        ...(name ? { subscriberName: name } : {}),
      },
      tags: ['newsletter', 'welcome'],
    });
  }
}
