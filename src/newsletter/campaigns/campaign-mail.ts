import { Injectable } from '@nestjs/common';
import { Template } from 'liquidjs';
import { EntityManager } from 'typeorm';
import { SitesService } from '../../account/sites.service';
import { MailHtml } from '../../common/html/mail-html';
import {
  liquidEngine,
  PartFault,
  partFault,
  renderBounded,
  renderProblem,
  templateProblem,
} from '../../common/templates/liquid';
import { SiteContext } from '../../common/tenancy/site-context';
import { mailSecret, MailInput } from '../../email/email.service';
import { CLICK_URLS_VARIABLE, PIXEL_VARIABLE, pixelImage, trackingSource } from './campaign-content';
import { CampaignEntity, CampaignLinkEntity } from '../entities/campaign.entity';
import { encodeLinkToken } from '../links/link-tokens';
import { NewsletterLinks } from '../links/newsletter-links.service';
import { encodeTrackingToken } from '../tracking/tracking-tokens';

export const CAMPAIGN_MAIL_TYPE = 'newsletter.campaign';
/** Tags of a campaign's copies: the email_messages trigger counts delivered and failed by them. */
export const campaignTags = (campaignId: number) => ['newsletter-campaign', `newsletter-campaign:${campaignId}`];
/**
 * The recipient's preferences link in the content the campaign renders itself: a placeholder the
 * stored copy keeps, filled in when the copy is sent (docs/email.md, "What is stored").
 */
const PREFERENCES_SECRET = 'preferencesUrl';

/**
 * The variables a campaign's Liquid may read: `true` is a value (anything may follow it, such as
 * `.size`), `'any'` a free-form object (the subscriber's attributes).
 */
type VariableTree = { [name: string]: true | 'any' | VariableTree };
const CAMPAIGN_VARIABLES: VariableTree = {
  subscriber: { name: true, email: true, attributes: 'any' },
  preferencesUrl: true,
  unsubscribeUrl: true,
  campaign: { name: true },
};

/** What a recipient's mail is made from. */
export interface Recipient {
  id: number;
  email: string;
  name: string;
  attributes: Record<string, unknown>;
  manageNonce: string;
}

/**
 * A campaign ready to render: its templates parsed once (the content with its tracked links and
 * pixel made Liquid outputs, campaign-content.ts), the site's secret and base URL.
 */
export interface PreparedCampaign {
  site: SiteContext;
  campaign: CampaignEntity;
  subject: Template[];
  preheader: Template[];
  /** Null when prepared to hand copies over (their body is rendered when each is sent). */
  content: Template[] | null;
  /** False for a test send: links as written, no pixel. */
  tracked: boolean;
  /** The link indexes the tracked content reads a click URL for. */
  linkIndexes: number[];
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
  private readonly html = liquidEngine('html');
  private readonly plain = liquidEngine('text');

  constructor(
    private readonly links: NewsletterLinks,
    private readonly sites: SitesService,
    private readonly mailHtml: MailHtml,
  ) {}

  /**
   * Checks the campaign's Liquid as it is saved and scheduled (docs/newsletter.md, "Content"):
   * syntax, no tag that names a file, only the campaign's variables, and a trial render (of the
   * content as a tracked send renders it, its CSS inlined) with a sample subscriber within the
   * template budget. A 400 names the field: `validation_failed`, or `template_limit_exceeded`
   * (also for HTML over the shape limits of common/html/html-shape.ts).
   */
  async check(campaign: Pick<CampaignEntity, 'name' | 'subject' | 'previewText' | 'contentHtml'>): Promise<void> {
    const faults: PartFault[] = [];
    const sample = sampleVariables(campaign.name);
    const parts: Array<[string, string, 'html' | 'text']> = [
      ['subject', campaign.subject, 'text'],
      ['previewText', campaign.previewText, 'text'],
      ['contentHtml', campaign.contentHtml, 'html'],
    ];
    for (const [path, source, flavour] of parts) {
      const engine = flavour === 'html' ? this.html : this.plain;
      try {
        const templates = engine.parse(source);
        const unknown = engine
          .globalVariableSegmentsSync(templates)
          .map(unknownVariable)
          .find((u) => u !== undefined);
        if (unknown) {
          faults.push({ path, message: `uses ${unknown}, which campaigns do not have`, limit: false });
          continue;
        }
        if (flavour === 'text') {
          renderBounded(engine, templates, sample);
          continue;
        }
        // A big content costs tens of ms a step: other requests are served between them.
        await breathe();
        const tracked = trackingSource(source);
        // Its CSS inlined as a send does (in a worker, within its limits and budget).
        const inlined = await this.mailHtml.inlineSource(tracked.source);
        const clicks: string[] = [];
        for (const i of tracked.linkIndexes) clicks[i] = `https://example.com/track/click/${i}`;
        renderBounded(engine, engine.parse(inlined), {
          ...sample,
          [CLICK_URLS_VARIABLE]: clicks,
          [PIXEL_VARIABLE]: pixelImage('https://example.com/track/open'),
        });
      } catch (err) {
        faults.push(partFault(path, err, 'is not a valid template: '));
      }
    }
    if (faults.length > 0) throw templateProblem(faults);
  }

  /**
   * Parses the campaign once for a batch (or a test send: `tracked` false), its CSS inlined once
   * (MailHtml caches the result for the campaign's next batches): a copy only renders Liquid.
   */
  async prepare(
    em: EntityManager,
    site: SiteContext,
    campaign: CampaignEntity,
    { tracked = true, body = true }: { tracked?: boolean; body?: boolean } = {},
  ): Promise<PreparedCampaign> {
    const { settings } = await this.sites.profileOf(site.id, em);
    let content = campaign.contentHtml;
    let linkIndexes: number[] = [];
    try {
      if (!body)
        return {
          site,
          campaign,
          subject: this.plain.parse(campaign.subject),
          preheader: this.plain.parse(campaign.previewText),
          content: null,
          tracked,
          linkIndexes,
          secret: await this.links.secretOf(site.id, em),
          base: settings.publicBaseUrl,
        };
      if (tracked) {
        const links = await em.find(CampaignLinkEntity, { where: { campaignId: campaign.id } });
        ({ source: content, linkIndexes } = trackingSource(content, new Map(links.map((l) => [l.url, l.linkIndex]))));
      }
      content = await this.mailHtml.inlineSource(content);
      return {
        site,
        campaign,
        subject: this.plain.parse(campaign.subject),
        preheader: this.plain.parse(campaign.previewText),
        content: this.html.parse(content),
        tracked,
        linkIndexes,
        secret: await this.links.secretOf(site.id, em),
        base: settings.publicBaseUrl,
      };
    } catch (err) {
      throw renderProblem(err, 'contentHtml', 'The campaign');
    }
  }

  /**
   * One recipient's copy as the send hands it over: its subject and headers, no body; the email
   * module records it naming this campaign and subscription, and asks CampaignCopies for the body
   * when the copy is sent or shown (docs/newsletter.md, "Delivery").
   */
  copy(p: PreparedCampaign, r: Recipient): MailInput {
    return {
      ...this.render(p, r),
      source: { name: CAMPAIGN_MAIL_TYPE, id: p.campaign.id, itemId: r.id },
    };
  }

  /** One recipient's mail: tracked links and pixel as the campaign was prepared. */
  render(p: PreparedCampaign, r: Recipient): MailInput {
    const { site, campaign } = p;
    const manage = encodeLinkToken(p.secret, { kind: 'm', subscriptionId: r.id, nonce: r.manageNonce });
    const { preferencesUrl, headers, secrets } = this.links.mailLinks(site, manage, p.base);
    // A Liquid output, never a literal href: the link is not made a click link (campaign-content.ts).
    const preferencesLink = mailSecret(PREFERENCES_SECRET);
    const vars: Record<string, unknown> = {
      subscriber: { name: r.name, email: r.email, attributes: r.attributes },
      preferencesUrl: preferencesLink,
      unsubscribeUrl: preferencesLink,
      campaign: { name: campaign.name },
    };
    if (p.tracked && p.content) {
      const at = (path: string) => this.links.absolute(path, p.base);
      const track = `/api/v2/sites/${site.name}/newsletter/track`;
      const clicks: string[] = [];
      for (const linkIndex of p.linkIndexes)
        clicks[linkIndex] = at(
          `${track}/click/${encodeTrackingToken(p.secret, { kind: 'click', campaignId: campaign.id, subscriptionId: r.id, linkIndex })}`,
        );
      vars[CLICK_URLS_VARIABLE] = clicks;
      vars[PIXEL_VARIABLE] = pixelImage(
        at(
          `${track}/open/${encodeTrackingToken(p.secret, { kind: 'open', campaignId: campaign.id, subscriptionId: r.id })}`,
        ),
      );
    }
    try {
      const html = p.content ? String(renderBounded(this.html, p.content, vars)) : '';
      const subject = String(renderBounded(this.plain, p.subject, vars)).trim() || campaign.name;
      const preheader = String(renderBounded(this.plain, p.preheader, vars));
      // `unsubscribeUrl` is the template type's secret variable: the email module seals it.
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
        tags: p.tracked ? campaignTags(campaign.id) : ['newsletter-campaign-test'],
        headers,
        secrets: { ...secrets, [PREFERENCES_SECRET]: preferencesUrl },
      };
    } catch (err) {
      throw renderProblem(err, 'contentHtml', 'The campaign');
    }
  }
}

/** Lets the event loop serve what waits (a macrotask turn). */
const breathe = () => new Promise<void>((resolve) => setImmediate(resolve));

/** What a trial render gives the campaign's Liquid: a subscriber as a send would. */
function sampleVariables(name: string): Record<string, unknown> {
  return {
    subscriber: { name: 'Ada Lovelace', email: 'ada@example.com', attributes: {} },
    preferencesUrl: 'https://example.com/preferences',
    unsubscribeUrl: 'https://example.com/preferences',
    campaign: { name },
  };
}

/** The first name the campaign's variables do not have, as `` `subscriber.nmae` ``; undefined if known. */
function unknownVariable(segments: unknown[]): string | undefined {
  let tree: VariableTree | true | 'any' = CAMPAIGN_VARIABLES;
  const path: string[] = [];
  for (const segment of segments) {
    if (typeof segment !== 'string' || tree === true || tree === 'any') return undefined;
    path.push(segment);
    if (!Object.hasOwn(tree, segment)) return `\`${path.join('.')}\``;
    tree = tree[segment];
  }
  return undefined;
}
