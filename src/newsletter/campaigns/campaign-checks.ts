import { Injectable } from '@nestjs/common';
import { EntityManager, In } from 'typeorm';
import { NotFoundProblem, ValidationProblem } from '../../common/errors/problems';
import { SiteContext } from '../../common/tenancy/site-context';
import { EmailTemplatesService } from '../../email/email-templates.service';
import { CampaignEntity } from '../entities/campaign.entity';
import { NewsletterListEntity } from '../entities/newsletter-list.entity';
import { CAMPAIGN_MAIL_TYPE, CampaignMail } from './campaign-mail';

/** What a campaign must hold: references of its own site when saved, and all a send needs before one starts. */
@Injectable()
export class CampaignChecks {
  constructor(
    private readonly mail: CampaignMail,
    private readonly templates: EmailTemplatesService,
  ) {}

  /**
   * What a send needs: a subject, a body, lists, and Liquid (its own and its template's) that
   * passes today's checks: one saved under older rules is checked again before it is sent.
   */
  async assertReady(em: EntityManager, site: SiteContext, c: CampaignEntity): Promise<void> {
    const errors = [];
    if (!c.subject.trim()) errors.push({ path: 'subject', message: 'is required to send' });
    if (!c.contentHtml.trim() && c.templateId === null)
      errors.push({ path: 'contentHtml', message: 'or templateId is required to send' });
    if (c.listIds.length === 0) errors.push({ path: 'listIds', message: 'must name at least one list to send' });
    if (errors.length > 0) throw new ValidationProblem(errors);
    await this.mail.check(c);
    if (c.templateId === null) return this.templates.assertUsable(site, { type: CAMPAIGN_MAIL_TYPE }, em);
    await this.templates.assertUsable(site, { templateId: c.templateId }, em).catch((err: unknown) => {
      if (!(err instanceof NotFoundProblem)) throw err;
      throw new ValidationProblem([{ path: 'templateId', message: 'names a template that no longer exists' }]);
    });
  }

  /** Lists of this site; a template of this site and of type newsletter.campaign (400 otherwise). */
  async checkReferences(em: EntityManager, site: SiteContext, c: CampaignEntity): Promise<void> {
    if (c.listIds.length > 0) {
      const found = await em.count(NewsletterListEntity, { where: { siteId: site.id, id: In(c.listIds) } });
      if (found !== c.listIds.length)
        throw new ValidationProblem([{ path: 'listIds', message: 'must be lists of this site' }]);
    }
    if (c.templateId !== null) {
      const resolved = await this.templates.resolveById(site, c.templateId, em).catch(() => null);
      if (!resolved || resolved.type.type !== CAMPAIGN_MAIL_TYPE)
        throw new ValidationProblem([
          { path: 'templateId', message: `must be an email template of this site of type ${CAMPAIGN_MAIL_TYPE}` },
        ]);
    }
  }
}
