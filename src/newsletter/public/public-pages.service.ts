import { Injectable } from '@nestjs/common';
import { SitesService } from '../../account/sites.service';
import { Problem } from '../../common/errors/problems';
import { SiteContext } from '../../common/tenancy/site-context';
import { AudienceService, LinkOutcome } from '../audience/audience.service';
import { ConfirmAnswer, ConfirmationsService } from '../audience/confirmations.service';
import { NewsletterLinks } from '../links/newsletter-links.service';
import { messagePage, preferencesPage, reconsentPage } from './pages';
import { ClientInfo } from '../audience/subscription-writer';

/** What a page route answers a browser: an HTML page with its status, or a redirect. */
export type PageAnswer = { status: number; html: string } | { redirect: string };

const NOTICES: Record<string, string> = {
  left: 'You left the list.',
  'left-all': 'You are unsubscribed from every list.',
};

/**
 * The pages people see (docs/newsletter.md, "Pages"): the same work as the JSON routes, rendered
 * in the site's name. A refused link (forged, expired, used) is a page with the problem's status
 * and words, never a JSON problem a person cannot read.
 */
@Injectable()
export class PublicPages {
  constructor(
    private readonly audience: AudienceService,
    private readonly confirmations: ConfirmationsService,
    private readonly links: NewsletterLinks,
    private readonly sites: SitesService,
  ) {}

  /** A confirmation link opened: confirmed (a page, or the site's redirect), or the re-consent page. */
  async open(site: SiteContext, token: string, client: ClientInfo): Promise<PageAnswer> {
    return this.answer(site, token, () => this.confirmations.open(site, token, client));
  }

  /** A confirmation's token posted by the re-consent page's button. */
  async press(site: SiteContext, token: string, client: ClientInfo): Promise<PageAnswer> {
    return this.answer(site, token, () => this.confirmations.press(site, token, client));
  }

  private async answer(site: SiteContext, token: string, work: () => Promise<ConfirmAnswer>): Promise<PageAnswer> {
    const { title, settings } = await this.sites.profileOf(site.id);
    const siteTitle = title || site.name;
    try {
      const outcome = await work();
      if (outcome.result === 'confirmation_required')
        return {
          status: 200,
          html: reconsentPage({
            siteTitle,
            token,
            action: this.links.confirmPostPath(site),
            listNames: outcome.lists.filter((l) => l.status === 'pending').map((l) => l.name),
          }),
        };
      const redirect = settings.newsletter?.confirmRedirectUrl;
      if (redirect) return { redirect };
      const names = outcome.lists.filter((l) => l.status === 'active').map((l) => l.name);
      return {
        status: 200,
        html: messagePage({
          siteTitle,
          title: 'Subscription confirmed',
          message: `Thank you: you will receive ${names.join(', ') || 'our mail'} from ${siteTitle}.`,
          preferencesPath: await this.preferencesPath(site, outcome),
        }),
      };
    } catch (err) {
      return this.problemPage(siteTitle, err);
    }
  }

  async preferences(site: SiteContext, token: string, done?: string): Promise<PageAnswer> {
    const { title } = await this.sites.profileOf(site.id);
    const siteTitle = title || site.name;
    try {
      const outcome = await this.audience.preferences(site, token);
      if (!outcome.subscription)
        return {
          status: 404,
          html: messagePage({ siteTitle, title: 'Nothing to manage', message: 'This address is not subscribed.' }),
        };
      return {
        status: 200,
        html: preferencesPage({
          siteTitle,
          email: outcome.subscription.email,
          token,
          action: this.links.unsubscribePath(site),
          lists: outcome.lists.map((l) => ({ id: l.listId, name: l.name, status: l.status })),
          notice: done ? NOTICES[done] : undefined,
        }),
      };
    } catch (err) {
      return this.problemPage(siteTitle, err);
    }
  }

  /** After a form post from the preferences page: back to it (303), saying what happened. */
  afterUnsubscribe(site: SiteContext, token: string, all: boolean): PageAnswer {
    return { redirect: `${this.links.preferencesPath(site, token)}?done=${all ? 'left-all' : 'left'}` };
  }

  problemPage(siteTitle: string, err: unknown): PageAnswer {
    if (!(err instanceof Problem)) throw err;
    return {
      status: err.getStatus(),
      html: messagePage({ siteTitle, title: err.title, message: err.detail ?? err.title }),
    };
  }

  private async preferencesPath(site: SiteContext, outcome: LinkOutcome): Promise<string | undefined> {
    return outcome.subscription
      ? this.links.preferencesPath(site, await this.links.manageToken(site, outcome.subscription))
      : undefined;
  }
}
