import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { PublicUrls } from '../../common/http/public-urls';
import { SiteContext } from '../../common/tenancy/site-context';
import { NewsletterConfig } from '../newsletter.config';
import { mailSecret } from '../../email/email.service';
import { SigningKeyEntity } from '../entities/signing-key.entity';
import { SubscriptionEntity } from '../entities/subscription.entity';
import { decodeLinkToken, encodeLinkToken, LinkKind, LinkToken } from './link-tokens';
import { SigningKeysRepository } from './signing-keys.repository';

/** The name of the one-click unsubscribe URL among a mail's secrets. */
const ONE_CLICK_SECRET = 'oneClickUnsubscribeUrl';

/** At most this many site secrets are kept in memory. */
const MAX_CACHED = 10_000;

/**
 * The links of the newsletter's mail and pages: each site's signing secret (made on first use,
 * kept in memory: it never changes), the tokens, and their absolute URLs (the site's
 * `publicBaseUrl`, else PUBLIC_BASE_URL).
 */
@Injectable()
export class NewsletterLinks {
  private readonly secrets = new Map<number, Buffer>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly urls: PublicUrls,
    private readonly config: NewsletterConfig,
    private readonly keys: SigningKeysRepository,
  ) {}

  async secretOf(siteId: number, em?: EntityManager): Promise<Buffer> {
    const known = this.secrets.get(siteId);
    if (known) return known;
    const manager = em ?? this.dataSource.manager;
    await this.keys.insertIfMissing(manager, siteId, randomBytes(32));
    const row = await manager.findOneByOrFail(SigningKeyEntity, { siteId });
    if (this.secrets.size >= MAX_CACHED) this.secrets.clear();
    this.secrets.set(siteId, row.secret);
    return row.secret;
  }

  /** The site's secret if it has made one (read once, then from memory); null: it has issued no token. */
  async secretIfAny(siteId: number): Promise<Buffer | null> {
    const known = this.secrets.get(siteId);
    if (known) return known;
    const row = await this.dataSource.manager.findOneBy(SigningKeyEntity, { siteId });
    if (!row) return null;
    if (this.secrets.size >= MAX_CACHED) this.secrets.clear();
    this.secrets.set(siteId, row.secret);
    return row.secret;
  }

  /** Forgets a site's secret (its row went with the site). */
  forget(siteId: number): void {
    this.secrets.delete(siteId);
  }

  /** A confirm link's token (`c`), or a re-consent one (`r`) for an address that complained. */
  async confirmToken(
    em: EntityManager,
    site: SiteContext,
    sub: SubscriptionEntity,
    nonce: string,
    kind: 'c' | 'r' = 'c',
  ): Promise<string> {
    const expiresAt = Math.floor(Date.now() / 1000) + this.config.NEWSLETTER_CONFIRM_TTL_HOURS * 3600;
    return encodeLinkToken(await this.secretOf(site.id, em), {
      kind,
      subscriptionId: sub.id,
      nonce,
      expiresAt,
    });
  }

  async manageToken(site: SiteContext, sub: SubscriptionEntity, em?: EntityManager): Promise<string> {
    return encodeLinkToken(await this.secretOf(site.id, em), {
      kind: 'm',
      subscriptionId: sub.id,
      nonce: sub.manageNonce,
    });
  }

  /** The claims of a token signed with the site's secret; a site without one has issued none. */
  async decode(site: SiteContext, token: string, kind: LinkKind): Promise<LinkToken | null> {
    let secret = this.secrets.get(site.id);
    if (!secret) {
      const row = await this.dataSource.manager.findOneBy(SigningKeyEntity, { siteId: site.id });
      if (!row) return null;
      secret = row.secret;
      this.secrets.set(site.id, secret);
    }
    return decodeLinkToken(secret, token, kind);
  }

  /** Paths from the server's root (pages link and post to them on their own origin). */
  confirmPath(site: SiteContext, token: string): string {
    return `/api/v2/sites/${site.name}/newsletter/confirm/${token}`;
  }

  /** Where a confirmation's token is posted (the re-consent page's button). */
  confirmPostPath(site: SiteContext): string {
    return `/api/v2/sites/${site.name}/newsletter/confirm`;
  }

  preferencesPath(site: SiteContext, token: string): string {
    return `/api/v2/sites/${site.name}/newsletter/preferences/${token}`;
  }

  unsubscribePath(site: SiteContext): string {
    return `/api/v2/sites/${site.name}/newsletter/unsubscribe`;
  }

  /** The RFC 8058 one-click target: POST `List-Unsubscribe=One-Click` to it. */
  oneClickPath(site: SiteContext, token: string): string {
    return `${this.unsubscribePath(site)}?token=${encodeURIComponent(token)}`;
  }

  /**
   * What every mail to a subscriber carries (campaigns, series): the preferences page's URL, and
   * the RFC 8058 headers whose one-click target unsubscribes with a POST. The headers show the
   * target as a placeholder and `secrets` holds it: a stored copy keeps no working link
   * (docs/email.md, "What is stored"). The caller passes the URL as the template's secret variable.
   */
  mailLinks(
    site: SiteContext,
    token: string,
    siteBase: string | undefined,
  ): { preferencesUrl: string; headers: Record<string, string>; secrets: Record<string, string> } {
    return {
      preferencesUrl: this.absolute(this.preferencesPath(site, token), siteBase),
      headers: {
        'List-Unsubscribe': `<${mailSecret(ONE_CLICK_SECRET)}>`,
        'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
      },
      secrets: { [ONE_CLICK_SECRET]: this.absolute(this.oneClickPath(site, token), siteBase) },
    };
  }

  absolute(path: string, siteBase: string | undefined): string {
    return this.urls.absolute(path, siteBase);
  }

  /**
   * On this server's own origin (PUBLIC_BASE_URL), never the site's `publicBaseUrl`: that names a
   * host the tenant runs or proxies, which would see every token opened through it.
   */
  serverAbsolute(path: string): string {
    return this.urls.absolute(path);
  }
}
