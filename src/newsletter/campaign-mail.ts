import { Injectable } from '@nestjs/common';
import { Liquid, Template } from 'liquidjs';
import { EntityManager } from 'typeorm';
import { SitesService } from '../account/sites.service';
import { BadRequestProblem, ValidationProblem } from '../common/errors/problems';
import { SiteContext } from '../common/tenancy/site-context';
import { MailInput } from '../email/email.service';
import { rewriteLinks, withPixel } from './campaign-content';
import { CampaignEntity, CampaignLinkEntity } from './entities/campaign.entity';
import { encodeLinkToken } from './link-tokens';
import { NewsletterLinks } from './newsletter-links.service';
import { encodeTrackingToken } from './tracking-tokens';

export const CAMPAIGN_MAIL_TYPE = 'newsletter.campaign';
/** Tags of a campaign's copies: the email_messages trigger counts delivered and failed by them. */
export const campaignTags = (campaignId: number) => ['newsletter-campaign', `newsletter-campaign:${campaignId}`];

const LIMITS = { parseLimit: 1_000_000, renderLimit: 2000, memoryLimit: 20_000_000 };

/** What a recipient's mail is made from. */
export interface Recipient {
  id: number;
  email: string;
  name: string;
  attributes: Record<string, unknown>;
  manageNonce: string;
}

/** A campaign ready to render: its templates parsed once, its links indexed, the site's secret and base URL. */
export interface PreparedCampaign {
  site: SiteContext;
  campaign: CampaignEntity;
  subject: Template[];
  preheader: Template[];
  content: Template[];
  linkIndex: Map<string, number>;
  secret: Buffer;
  base: string | undefined;
}

/**
 * Renders a campaign for one recipient (docs/newsletter.md, "Campaigns"): the content is Liquid
 * (the email module's language) with the subscriber's name, address and attributes and their
 * links; its absolute links become click links, an open pixel is added, and the copy carries
 * `List-Unsubscribe` (the one-click URL) and `List-Unsubscribe-Post` (RFC 8058). The wrapper is
 * the site's published `newsletter.campaign` template (or the campaign's own template), rendered
 * by the email module.
 */
@Injectable()
export class CampaignMail {
  private readonly html = new Liquid({ outputEscape: 'escape', strictFilters: true, ownPropertyOnly: true, ...LIMITS });
  private readonly plain = new Liquid({ strictFilters: true, ownPropertyOnly: true, ...LIMITS });

  constructor(
    private readonly links: NewsletterLinks,
    private readonly sites: SitesService,
  ) {}

  /** Parses the campaign's Liquid; a syntax error is a 400 naming the field. */
  check(campaign: Pick<CampaignEntity, 'subject' | 'previewText' | 'contentHtml'>): void {
    const errors: Array<{ path: string; message: string }> = [];
    const parts: Array<[string, string, Liquid]> = [
      ['subject', campaign.subject, this.plain],
      ['previewText', campaign.previewText, this.plain],
      ['contentHtml', campaign.contentHtml, this.html],
    ];
    for (const [path, source, engine] of parts) {
      try {
        engine.parse(source);
      } catch (err) {
        errors.push({ path, message: `is not a valid template: ${(err as Error).message.split('\n')[0]}` });
      }
    }
    if (errors.length > 0) throw new ValidationProblem(errors);
  }

  async prepare(em: EntityManager, site: SiteContext, campaign: CampaignEntity): Promise<PreparedCampaign> {
    const links = await em.find(CampaignLinkEntity, { where: { campaignId: campaign.id } });
    const { settings } = await this.sites.profileOf(site.id, em);
    return {
      site,
      campaign,
      subject: this.plain.parse(campaign.subject),
      preheader: this.plain.parse(campaign.previewText),
      content: this.html.parse(campaign.contentHtml),
      linkIndex: new Map(links.map((l) => [l.url, l.linkIndex])),
      secret: await this.links.secretOf(site.id, em),
      base: settings.publicBaseUrl,
    };
  }

  /** One recipient's mail; `tracked: false` (a test send) leaves links and pixel out. */
  render(p: PreparedCampaign, r: Recipient, tracked = true): MailInput {
    const { site, campaign } = p;
    const manage = encodeLinkToken(p.secret, { kind: 'm', subscriptionId: r.id, nonce: r.manageNonce });
    const { preferencesUrl, headers } = this.links.mailLinks(site, manage, p.base);
    const vars = {
      subscriber: { name: r.name, email: r.email, attributes: r.attributes },
      preferencesUrl,
      unsubscribeUrl: preferencesUrl,
      campaign: { name: campaign.name },
    };
    try {
      let html = String(this.html.renderSync(p.content, vars));
      if (tracked) {
        const at = (path: string) => this.links.absolute(path, p.base);
        html = rewriteLinks(html, p.linkIndex, (linkIndex) =>
          at(
            `/api/v2/sites/${site.name}/newsletter/track/click/${encodeTrackingToken(p.secret, {
              kind: 'click',
              campaignId: campaign.id,
              subscriptionId: r.id,
              linkIndex,
            })}`,
          ),
        );
        html = withPixel(
          html,
          at(
            `/api/v2/sites/${site.name}/newsletter/track/open/${encodeTrackingToken(p.secret, {
              kind: 'open',
              campaignId: campaign.id,
              subscriptionId: r.id,
            })}`,
          ),
        );
      }
      const subject = String(this.plain.renderSync(p.subject, vars)).trim() || campaign.name;
      const preheader = String(this.plain.renderSync(p.preheader, vars));
      const data: Record<string, unknown> = { subject, contentHtml: html, unsubscribeUrl: preferencesUrl };
      if (preheader) data.preheader = preheader;
      return {
        to: r.name ? { email: r.email, name: r.name } : { email: r.email },
        ...(campaign.fromAddress || campaign.fromName
          ? { from: { email: campaign.fromAddress ?? undefined, name: campaign.fromName ?? undefined } }
          : {}),
        ...(campaign.replyTo ? { replyTo: { email: campaign.replyTo } } : {}),
        ...(campaign.templateId ? { templateId: campaign.templateId } : { templateType: CAMPAIGN_MAIL_TYPE }),
        data,
        tags: tracked ? campaignTags(campaign.id) : ['newsletter-campaign-test'],
        headers,
      };
    } catch (err) {
      if (err instanceof ValidationProblem) throw err;
      throw new BadRequestProblem(
        'template_render_failed',
        `The campaign could not be rendered: ${(err as Error).message}`,
      );
    }
  }
}
