import { Injectable } from '@nestjs/common';
import { SitesService } from '../account/sites.service';
import { DataSource, EntityManager } from 'typeorm';
import {
  ConflictProblem,
  NotFoundProblem,
  PreconditionFailedProblem,
  ValidationProblem,
} from '../common/errors/problems';
import { ifMatchAllows, versionEtag } from '../common/http/etag';
import { Page } from '../common/pagination/page';
import { SiteContext } from '../common/tenancy/site-context';
import { namedXactLock } from '../database/sql';
import { CreateEmailTemplateDto, EmailTemplateQueryDto, UpdateEmailTemplateDto } from './dto/email-template.dto';
import { EmailRepository } from './email.repository';
import { EmailTemplatesRepository } from './email-templates.repository';
import { EmailRenderer, MailParts, RenderedMail } from './email-renderer';
import { EmailVariables } from './email-variables';
import { EmailTemplateEntity } from './entities/email-template.entity';
import { EmailTemplateType, EmailTemplateTypes } from './template-types';
import { templateProblem } from '../common/templates/liquid';
import { secretFaults } from './mail-secrets';

/** The template a send of a type uses: the site's published one, or the type's built-in default. */
export interface ResolvedTemplate {
  type: EmailTemplateType;
  /** Null for the built-in default. */
  template: EmailTemplateEntity | null;
  parts: MailParts;
}

/**
 * Templates per site (docs/email.md): drafts are edited, one published template per type is
 * what sends of that type use (draft -> published; publishing one puts the previous
 * back to draft). Every part is checked against its type's variables when saved and published.
 */
@Injectable()
export class EmailTemplatesService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly repository: EmailRepository,
    private readonly templates: EmailTemplatesRepository,
    private readonly types: EmailTemplateTypes,
    private readonly renderer: EmailRenderer,
    private readonly variables: EmailVariables,
    private readonly sites: SitesService,
  ) {}

  list(site: SiteContext, query: EmailTemplateQueryDto): Promise<Page<EmailTemplateEntity>> {
    return this.repository.listTemplates(site, query);
  }

  async get(site: SiteContext, id: number): Promise<EmailTemplateEntity> {
    const found = await this.repository.findTemplate(site, id);
    if (!found) throw new NotFoundProblem('Template');
    return found;
  }

  async create(site: SiteContext, dto: CreateEmailTemplateDto): Promise<EmailTemplateEntity> {
    const type = this.types.get(dto.type);
    assertReplaceable(type);
    const parts = { subject: dto.subject, html: dto.html, text: dto.text ?? null };
    await this.check(site, parts, type);
    return this.dataSource.manager.save(
      this.dataSource.manager.create(EmailTemplateEntity, {
        siteId: site.id,
        type: type.type,
        name: dto.name,
        ...parts,
      }),
    );
  }

  /** A draft's fields; a published template is changed by publishing an edited clone (409). */
  update(
    site: SiteContext,
    id: number,
    dto: UpdateEmailTemplateDto,
    options: { ifMatch?: string } = {},
  ): Promise<EmailTemplateEntity> {
    return this.dataSource.transaction(async (em) => {
      const template = await this.lock(em, site, id, options.ifMatch);
      assertDraft(template, 'edited');
      if (dto.name !== undefined) template.name = dto.name;
      if (dto.subject !== undefined) template.subject = dto.subject;
      if (dto.html !== undefined) template.html = dto.html;
      if (dto.text !== undefined) template.text = dto.text;
      const type = this.types.get(template.type);
      await this.check(site, partsOf(template), type);
      template.version += 1;
      return em.save(template);
    });
  }

  remove(site: SiteContext, id: number): Promise<void> {
    return this.dataSource.transaction(async (em) => {
      const template = await this.lock(em, site, id);
      assertDraft(template, 'deleted');
      await em.delete(EmailTemplateEntity, { id: template.id });
    });
  }

  /** A new draft with the same type and parts. */
  async clone(site: SiteContext, id: number): Promise<EmailTemplateEntity> {
    const source = await this.get(site, id);
    // A template saved before the sandbox's rules cannot be copied past them.
    const type = this.types.get(source.type);
    assertReplaceable(type);
    await this.check(site, partsOf(source), type);
    const em = this.dataSource.manager;
    return em.save(
      em.create(EmailTemplateEntity, {
        siteId: site.id,
        type: source.type,
        name: `${source.name} (copy)`.slice(0, 200),
        ...partsOf(source),
      }),
    );
  }

  /** Makes it the site's published template of its type; the one before goes back to draft. */
  publish(site: SiteContext, id: number): Promise<EmailTemplateEntity> {
    return this.dataSource.transaction(async (em) => {
      const template = await this.lock(em, site, id);
      if (template.status === 'published')
        throw new ConflictProblem('transition_forbidden', 'The template is already published');
      // The type's rules (and the sandbox's) may have changed since the draft was saved.
      const type = this.types.get(template.type);
      await this.check(site, partsOf(template), type);
      // Two publishes of one type at once would both unpublish "the previous" one: one at a time.
      await namedXactLock(em, `email_template:${site.id}:${template.type}`);
      await this.templates.unpublishType(em, site.id, template.type);
      Object.assign(template, { status: 'published', publishedAt: new Date(), version: template.version + 1 });
      return em.save(template);
    });
  }

  /** A fixed type (template-types.ts): only its module sends it, always as its default. */
  isFixed(typeName: string): boolean {
    return this.types.find(typeName)?.fixed === true;
  }

  /** What a send of `type` uses for this site. */
  async resolve(site: SiteContext, typeName: string, em?: EntityManager): Promise<ResolvedTemplate> {
    const type = this.types.get(typeName);
    if (type.fixed) return { type, template: null, parts: defaultParts(type) };
    const template = em
      ? await em.findOne(EmailTemplateEntity, { where: { siteId: site.id, type: typeName, status: 'published' } })
      : ((await this.repository.findPublished(site, typeName)) ?? null);
    return { type, template, parts: template ? partsOf(template) : defaultParts(type) };
  }

  /** A template of the site by id (any status), for a send that names it. */
  async resolveById(site: SiteContext, id: number, em: EntityManager): Promise<ResolvedTemplate> {
    const template = await em.findOne(EmailTemplateEntity, { where: { id, siteId: site.id } });
    if (!template) throw new NotFoundProblem('Template');
    const type = this.types.find(template.type);
    if (!type) throw new NotFoundProblem(`Template type ${template.type}`, 'template_type_not_found');
    return { type, template, parts: partsOf(template) };
  }

  /**
   * Checks again, under today's rules, the template a send of `type` (or `templateId`) would use:
   * a template saved before them (a tag naming a file, a runaway loop) is a 400 before anything
   * is queued, not a failure per recipient.
   */
  async assertUsable(
    site: SiteContext,
    use: { type: string } | { templateId: number },
    em: EntityManager,
  ): Promise<void> {
    const { type, template, parts } =
      'templateId' in use ? await this.resolveById(site, use.templateId, em) : await this.resolve(site, use.type, em);
    if (template) await this.check(site, parts, type);
  }

  /** Renders a template with `data` (default: its type's sample) as a send would. */
  async preview(site: SiteContext, id: number, data?: Record<string, unknown>): Promise<RenderedMail> {
    const template = await this.get(site, id);
    const type = this.types.get(template.type);
    const variables = this.variables.check(type, data ?? type.sample);
    const { title } = await this.sites.profileOf(site.id);
    return this.renderer.render(partsOf(template), { ...variables, site: { name: site.name, title } });
  }

  /**
   * A template's parts under its type's rules: syntax, tags and variables, a trial render with
   * the sample data (EmailRenderer.check), and each secret variable output as it is (mail-secrets.ts).
   */
  private async check(site: SiteContext, parts: MailParts, type: EmailTemplateType): Promise<void> {
    const sample = sampleOf(site, type);
    await this.renderer.check(parts, type.variables, sample);
    const faults = await secretFaults((p, data) => this.renderer.render(p, data), parts, type, sample);
    if (faults.length > 0) throw templateProblem(faults);
  }

  private async lock(em: EntityManager, site: SiteContext, id: number, ifMatch?: string): Promise<EmailTemplateEntity> {
    const template = await em.findOne(EmailTemplateEntity, {
      where: { id, siteId: site.id },
      lock: { mode: 'pessimistic_write' },
    });
    if (!template) throw new NotFoundProblem('Template');
    if (!ifMatchAllows(ifMatch, versionEtag(template.id, template.version))) throw new PreconditionFailedProblem();
    return template;
  }
}

/** A fixed type (template-types.ts) has no site template: 400 on `type`. */
export function assertReplaceable(type: EmailTemplateType): void {
  if (type.fixed)
    throw new ValidationProblem([{ path: 'type', message: 'is a built-in mail that sites cannot replace or send' }]);
}

/** What a trial render at save gives a template: its type's sample and the site. */
function sampleOf(site: SiteContext, type: EmailTemplateType): Record<string, unknown> {
  return { ...type.sample, site: { name: site.name, title: site.name } };
}

function partsOf(t: EmailTemplateEntity): MailParts {
  return { subject: t.subject, html: t.html, text: t.text };
}

export function defaultParts(type: EmailTemplateType): MailParts {
  return {
    subject: type.defaultTemplate.subject,
    html: type.defaultTemplate.html,
    text: type.defaultTemplate.text ?? null,
  };
}

function assertDraft(template: EmailTemplateEntity, what: string): void {
  if (template.status !== 'draft')
    throw new ConflictProblem(
      'template_published',
      `A published template cannot be ${what}: clone it, edit the clone, publish it`,
    );
}
