import { ID } from '../../common/http/api-id';
import { DATE_TIME } from '../../common/http/api-date';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsNotEmpty, IsObject, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { SiteNameParamDto } from '../../common/http/params';
import { IsIdParam, MAX_ID, OptionalNotNull } from '../../common/input/dto-rules';
import { IsHeaderText } from '../../common/input/mail-rules';
import { CursorQueryDto } from '../../common/pagination/page';
import { EmailTemplateEntity, TEMPLATE_STATUSES, type TemplateStatus } from '../entities/email-template.entity';
import { TEMPLATE_TYPE_PATTERN } from './template-type.dto';
import { Checked } from '../../common/input/checked';

const TYPE_MESSAGE = 'must be a template type such as users.otp';
/** Liquid source of a mail body: generous, but bounded. */
const MAX_HTML = 500_000;

/** `:templateId` (with the site). */
export class TemplateIdParamDto extends SiteNameParamDto {
  @ApiProperty({ ...ID, minimum: 1, maximum: MAX_ID, example: 1 })
  @IsIdParam()
  templateId: number;
}

export class CreateEmailTemplateDto {
  @ApiProperty({ example: 'users.otp', description: 'One of GET /email/templates/types' })
  @IsString()
  @MaxLength(100)
  @Matches(TEMPLATE_TYPE_PATTERN, { message: TYPE_MESSAGE })
  type: string;

  @ApiProperty({ example: 'Sign-in code, spring look' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name: string;

  @ApiProperty({ example: 'Your code for {{ site.title }}', description: 'Liquid, one line' })
  @IsNotEmpty()
  @IsHeaderText(998)
  subject: string;

  @ApiProperty({
    example: '<p>Your code is <strong>{{ code }}</strong>.</p>',
    description: 'Liquid; every {{ output }} is HTML-escaped unless it says | raw. <style> is inlined.',
  })
  @IsString()
  @IsNotEmpty()
  @MaxLength(MAX_HTML)
  html: string;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'Your code is {{ code }}.',
    description: 'The plain-text part (Liquid); absent or null: made from the HTML',
  })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_HTML)
  text?: string | null;
}

/** A draft's fields; its type stays. */
export class UpdateEmailTemplateDto {
  @ApiPropertyOptional({ example: 'Demo campaign layout, wide' })
  @OptionalNotNull()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name?: string;

  @ApiPropertyOptional({ example: '{{ subject }} | Demo' })
  @OptionalNotNull()
  @IsNotEmpty()
  @IsHeaderText(998)
  subject?: string;

  @ApiPropertyOptional({
    example: '<div>{{ contentHtml | raw }}</div><p><a href="{{ unsubscribeUrl }}">Unsubscribe</a></p>',
  })
  @OptionalNotNull()
  @IsString()
  @IsNotEmpty()
  @MaxLength(MAX_HTML)
  html?: string;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'Null: made from the HTML' })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_HTML)
  text?: string | null;
}

export class EmailTemplateQueryDto extends CursorQueryDto {
  @ApiPropertyOptional({ example: 'users.otp' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  @Matches(TEMPLATE_TYPE_PATTERN, { message: TYPE_MESSAGE })
  type?: string;

  @ApiPropertyOptional({ enum: TEMPLATE_STATUSES })
  @IsOptional()
  @IsIn(TEMPLATE_STATUSES)
  status?: TemplateStatus;
}

export class PreviewEmailTemplateDto {
  @Checked('stored data', "Checked against the variables of the template's type.")
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    example: {
      subject: 'This week on Demo',
      contentHtml: '<p>Three stories we liked this week.</p>',
      unsubscribeUrl: 'https://demo.example/unsubscribe/abc123',
    },
    description: "Variables; absent: the type's sample data",
  })
  @OptionalNotNull()
  @IsObject()
  data?: Record<string, unknown>;
}

export class RenderedMailDto {
  @ApiProperty({ example: 'Your code for Demo Blog' }) subject: string;
  @ApiProperty({ example: '<p style="margin: 0">Your code is <strong>482913</strong>.</p>' }) html: string;
  @ApiProperty({ example: 'Your code is 482913.' }) text: string;
}

export class EmailTemplateResponseDto {
  @ApiProperty({ ...ID, example: 1 }) id: number;
  @ApiProperty({ example: 'users.otp' }) type: string;
  @ApiProperty({ example: 'Sign-in code, spring look' }) name: string;
  @ApiProperty({ example: 'Your code for {{ site.title }}' }) subject: string;
  @ApiProperty({ example: '<p>Your code is <strong>{{ code }}</strong>.</p>' }) html: string;
  @ApiProperty({ type: String, nullable: true, example: null }) text: string | null;
  @ApiProperty({ enum: TEMPLATE_STATUSES, example: 'draft' }) status: TemplateStatus;
  @ApiProperty({ example: 1, description: 'Goes up with every change; the ETag names it' }) version: number;
  @ApiProperty({ ...DATE_TIME, nullable: true }) publishedAt: string | null;
  @ApiProperty({ ...DATE_TIME, example: '2026-01-01T00:00:00.000Z' }) createdAt: string;
  @ApiProperty({ ...DATE_TIME, example: '2026-01-01T00:00:00.000Z' }) updatedAt: string;
}

/** The template a send of this type uses: the site's published one, or the built-in default. */
export class PublishedEmailTemplateDto {
  @ApiProperty({ example: 'users.otp' }) type: string;
  @ApiProperty({ example: false, description: 'True: the site has published none; this is the default' })
  builtIn: boolean;
  @ApiProperty({ ...ID, nullable: true, example: 1, description: 'Null for the built-in default' })
  id: number | null;
  @ApiProperty({ example: 'Sign-in code, spring look' }) name: string;
  @ApiProperty({ example: 'Your code for {{ site.title }}' }) subject: string;
  @ApiProperty({ example: '<p>Your code is <strong>{{ code }}</strong>.</p>' }) html: string;
  @ApiProperty({ type: String, nullable: true, example: null }) text: string | null;
  @ApiProperty({ ...DATE_TIME, nullable: true, example: '2026-01-01T00:00:00.000Z' }) publishedAt: string | null;
}

export function toEmailTemplateResponse(t: EmailTemplateEntity): EmailTemplateResponseDto {
  return {
    id: t.id,
    type: t.type,
    name: t.name,
    subject: t.subject,
    html: t.html,
    text: t.text,
    status: t.status,
    version: t.version,
    publishedAt: t.publishedAt?.toISOString() ?? null,
    createdAt: t.createdAt.toISOString(),
    updatedAt: t.updatedAt.toISOString(),
  };
}
