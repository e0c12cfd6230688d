import { Body, Delete, Get, Headers, Param, Patch, Post, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { CurrentSite } from '../common/auth/decorators';
import { ETAG_HEADER, setVersionEtag } from '../common/http/etag';
import { created } from '../common/http/public-urls';
import { ApiController, Route } from '../common/http/route.decorator';
import { mapPage, Page, PageDto } from '../common/pagination/page';
import { SiteContext } from '../common/tenancy/site-context';
import {
  CreateEmailTemplateDto,
  EmailTemplateQueryDto,
  EmailTemplateResponseDto,
  PreviewEmailTemplateDto,
  PublishedEmailTemplateDto,
  RenderedMailDto,
  TemplateIdParamDto,
  toEmailTemplateResponse,
  UpdateEmailTemplateDto,
} from './dto/email-template.dto';
import {
  TemplateTypeListDto,
  TemplateTypeParamDto,
  TemplateTypeResponseDto,
  toTemplateTypeResponse,
} from './dto/template-type.dto';
import { EmailTemplatesService } from './email-templates.service';
import { EmailTemplateEntity } from './entities/email-template.entity';
import { EmailTemplateTypes } from './template-types';

function withEtag(res: Response, t: EmailTemplateEntity): EmailTemplateResponseDto {
  setVersionEtag(res, t);
  return toEmailTemplateResponse(t);
}

@ApiController('api/v2/sites/:siteName/email/templates', { tag: 'Email', permissions: 'email' })
export class EmailTemplatesController {
  constructor(
    private readonly templates: EmailTemplatesService,
    private readonly types: EmailTemplateTypes,
  ) {}

  // The fixed paths come before `:templateId`.
  @Get('types')
  @Route({ auth: 'key', summary: 'List template types', ok: TemplateTypeListDto })
  listTypesEmailTemplate(): TemplateTypeListDto {
    return { data: this.types.all().map(toTemplateTypeResponse) };
  }

  @Get('types/:templateType')
  @Route({ auth: 'key', summary: 'Get a template type', ok: TemplateTypeResponseDto })
  getTypeEmailTemplate(@Param() { templateType }: TemplateTypeParamDto): TemplateTypeResponseDto {
    return toTemplateTypeResponse(this.types.get(templateType));
  }

  @Get('published/:templateType')
  @Route({
    auth: 'key',
    summary: 'Get the published template of a type',
    description: "The site's published template of the type, or the built-in default (`builtIn: true`).",
    ok: PublishedEmailTemplateDto,
  })
  async getPublishedEmailTemplate(
    @CurrentSite() site: SiteContext,
    @Param() { templateType }: TemplateTypeParamDto,
  ): Promise<PublishedEmailTemplateDto> {
    const { type, template, parts } = await this.templates.resolve(site, templateType);
    return {
      type: type.type,
      builtIn: template === null,
      id: template?.id ?? null,
      name: template?.name ?? `${type.type} (built-in)`,
      ...parts,
      publishedAt: template?.publishedAt?.toISOString() ?? null,
    };
  }

  @Get()
  @Route({
    auth: 'key',
    summary: 'List templates',
    description: 'Newest first, keyset-paginated; filter by type and status.',
    ok: PageDto(EmailTemplateResponseDto),
  })
  async listEmailTemplates(
    @CurrentSite() site: SiteContext,
    @Query() query: EmailTemplateQueryDto,
  ): Promise<Page<EmailTemplateResponseDto>> {
    return mapPage(await this.templates.list(site, query), toEmailTemplateResponse);
  }

  @Post()
  @Route({
    auth: 'key',
    summary: 'Create a template',
    description:
      'A draft. The parts are Liquid; each is parsed (a syntax error is a 400 with its line) and may use only ' +
      'the variables of its type and `site`.',
    created: { type: EmailTemplateResponseDto, headers: ETAG_HEADER },
  })
  async createEmailTemplate(
    @CurrentSite() site: SiteContext,
    @Body() dto: CreateEmailTemplateDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<EmailTemplateResponseDto> {
    const template = await this.templates.create(site, dto);
    created(res, `/api/v2/sites/${site.name}/email/templates/${template.id}`);
    return withEtag(res, template);
  }

  @Get(':templateId')
  @Route({ auth: 'key', summary: 'Get a template', ok: { type: EmailTemplateResponseDto, headers: ETAG_HEADER } })
  async getEmailTemplate(
    @CurrentSite() site: SiteContext,
    @Param() { templateId }: TemplateIdParamDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<EmailTemplateResponseDto> {
    return withEtag(res, await this.templates.get(site, templateId));
  }

  @Patch(':templateId')
  @Route({
    auth: 'key',
    summary: 'Update a draft template (admin)',
    description: 'Drafts only (a published template: 409; clone it). With If-Match, a stale ETag is a 412.',
    headers: [{ name: 'If-Match', required: false, description: 'ETag from the last read' }],
    ok: { type: EmailTemplateResponseDto, headers: ETAG_HEADER },
    problems: [409, 412],
    admin: true,
  })
  async updateEmailTemplate(
    @CurrentSite() site: SiteContext,
    @Param() { templateId }: TemplateIdParamDto,
    @Body() dto: UpdateEmailTemplateDto,
    @Headers('if-match') ifMatch: string | undefined,
    @Res({ passthrough: true }) res: Response,
  ): Promise<EmailTemplateResponseDto> {
    return withEtag(res, await this.templates.update(site, templateId, dto, { ifMatch }));
  }

  @Delete(':templateId')
  @Route({
    auth: 'key',
    summary: 'Delete a draft template (admin)',
    noContent: true,
    // Template 1 is published by the publish example; 2 is the create example's draft.
    params: [{ name: 'templateId', schema: { type: 'integer', minimum: 1, example: 2 } }],
    problems: [409],
    admin: true,
  })
  async deleteEmailTemplate(
    @CurrentSite() site: SiteContext,
    @Param() { templateId }: TemplateIdParamDto,
  ): Promise<void> {
    await this.templates.remove(site, templateId);
  }

  @Post(':templateId/clone')
  @Route({
    auth: 'key',
    summary: 'Clone a template',
    description: 'A new draft with the same type and parts.',
    created: { type: EmailTemplateResponseDto, headers: ETAG_HEADER },
  })
  async cloneEmailTemplate(
    @CurrentSite() site: SiteContext,
    @Param() { templateId }: TemplateIdParamDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<EmailTemplateResponseDto> {
    const template = await this.templates.clone(site, templateId);
    created(res, `/api/v2/sites/${site.name}/email/templates/${template.id}`);
    return withEtag(res, template);
  }

  @Post(':templateId/publish')
  @Route({
    auth: 'key',
    summary: 'Publish a template',
    description: 'It becomes the published template of its type for the site; the previous one goes back to draft.',
    ok: { type: EmailTemplateResponseDto, headers: ETAG_HEADER },
  })
  async publishEmailTemplate(
    @CurrentSite() site: SiteContext,
    @Param() { templateId }: TemplateIdParamDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<EmailTemplateResponseDto> {
    return withEtag(res, await this.templates.publish(site, templateId));
  }

  @Post(':templateId/preview')
  @Route({
    auth: 'key',
    summary: 'Preview a template (admin)',
    // Renders and sends nothing: a read of the template.
    permission: 'email:read',
    cost: 'render',
    description: "Renders it as a send would, with `data` or its type's sample data. Nothing is sent.",
    body: { optional: PreviewEmailTemplateDto },
    ok: RenderedMailDto,
    admin: true,
  })
  async previewEmailTemplate(
    @CurrentSite() site: SiteContext,
    @Param() { templateId }: TemplateIdParamDto,
    @Body() dto: PreviewEmailTemplateDto,
  ): Promise<RenderedMailDto> {
    return this.templates.preview(site, templateId, dto?.data);
  }
}
