import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { ValidationProblem } from '../common/errors/problems';
import { SiteContext } from '../common/tenancy/site-context';
import { EmailRenderer, RenderedMail } from './email-renderer';
import { EmailTemplatesService, ResolvedTemplate } from './email-templates.service';
import { EmailVariables } from './email-variables';
import { MailInput } from './mail-input';
import { MailSecretValues, redactData } from './mail-secrets';

/** One call's template look-ups: a campaign's copies name the same template. */
export type TemplateLookups = Map<string, Promise<ResolvedTemplate | null>>;

/** A mail made from its template and data: its parts with placeholders for its secrets, and their values. */
export interface ComposedMail {
  resolved: ResolvedTemplate | null;
  rendered: RenderedMail;
  secrets: MailSecretValues | null;
}

/**
 * Makes a mail's subject and parts (docs/email.md, "Sending"): its template (the site's published
 * one of its type, the default, or `templateId`), its data checked against the type with the real
 * values (a link must be a URI), rendered once with a placeholder for each secret value
 * (mail-secrets.ts). `subjectOnly`: a copy recorded without a body (mail-sources.ts) renders its
 * subject now and its body when it is sent.
 */
@Injectable()
export class MailComposer {
  constructor(
    private readonly templates: EmailTemplatesService,
    private readonly variables: EmailVariables,
    private readonly renderer: EmailRenderer,
  ) {}

  async compose(
    em: EntityManager,
    site: SiteContext,
    title: string,
    mail: MailInput,
    lookups: TemplateLookups,
    subjectOnly = false,
  ): Promise<ComposedMail> {
    const key = `${mail.templateType ?? ''}\u0000${mail.templateId ?? ''}\u0000${mail.subject !== undefined}`;
    let resolving = lookups.get(key);
    if (!resolving) {
      resolving = this.resolve(em, site, mail);
      lookups.set(key, resolving);
    }
    const resolved = await resolving;
    const { data, secrets } = redactData(
      resolved?.type ?? null,
      resolved ? this.variables.check(resolved.type, mail.data ?? {}) : undefined,
      mail.secrets,
    );
    if (!resolved) {
      if (mail.source) throw new Error('A mail with a source is made from a template');
      return { resolved, rendered: await this.plain(mail), secrets };
    }
    const variables = { ...data, site: { name: site.name, title } };
    const rendered = subjectOnly
      ? { subject: this.renderer.subject(resolved.parts, variables), html: '', text: '' }
      : await this.renderer.render(resolved.parts, variables);
    return { resolved, rendered, secrets };
  }

  private async resolve(em: EntityManager, site: SiteContext, mail: MailInput): Promise<ResolvedTemplate | null> {
    const ways = [mail.templateType !== undefined, mail.templateId !== undefined, mail.subject !== undefined];
    if (ways.filter(Boolean).length !== 1) {
      const given = (['templateType', 'templateId', 'subject'] as const).filter((field) => mail[field] !== undefined);
      throw new ValidationProblem(
        (given.length > 0 ? given : ['subject' as const]).map((path) => ({
          path,
          message: 'give exactly one of templateType, templateId, or subject with html or text',
        })),
      );
    }
    if (mail.templateType !== undefined) return this.templates.resolve(site, mail.templateType, em);
    if (mail.templateId !== undefined) return this.templates.resolveById(site, mail.templateId, em);
    return null;
  }

  private plain(mail: MailInput): Promise<RenderedMail> {
    if (mail.html === undefined && mail.text === undefined)
      throw new ValidationProblem([{ path: 'html', message: 'html or text is required with a subject' }]);
    if (mail.data !== undefined)
      throw new ValidationProblem([{ path: 'data', message: 'is only for templates (templateType or templateId)' }]);
    return this.renderer.plainMail(mail.subject!, mail.html, mail.text);
  }
}
