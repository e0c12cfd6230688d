import { ID, ID_LIST } from '../../common/http/api-id';
import { DATE_TIME } from '../../common/http/api-date';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateBy,
} from 'class-validator';
import { IdOrSlugParam } from '../../common/http/params';
import { IsIdSet, IsTimestamp, OptionalNotNull } from '../../common/input/dto-rules';
import { IsHeaderText, IsMailAddress } from '../../common/input/mail-rules';
import { CursorQueryDto } from '../../common/pagination/page';
import { SLUG_MAX_LENGTH, SLUG_MESSAGE, SLUG_PATTERN } from '../../common/slugs/slugs';
import {
  AttributeFilter,
  CAMPAIGN_STATUSES,
  CampaignEntity,
  CampaignStatsEntity,
  type CampaignStatus,
} from '../entities/campaign.entity';
import { declareSchemaRule } from '../../common/openapi/openapi-rules';
import { Checked, CheckedBody } from '../../common/input/checked';

export const CAMPAIGN_LIMITS = { name: 200, subject: 300, previewText: 300, fromName: 200, contentHtml: 512 * 1024 };
/** Statuses a PATCH may ask for; `sent` is the send's own. */
const ASKABLE = ['draft', 'scheduled', 'sending', 'paused', 'canceled'] as const;

declareSchemaRule('isAttributeFilter', {
  schema: { type: 'object', maxProperties: 20 },
  described: 'Each value a string of at most 200 characters, a number or a boolean.',
});

/** At most 20 keys, each a string (≤ 200), a number or a boolean: matched as `attributes @> filter`. */
const IsAttributeFilter = () =>
  ValidateBy({
    name: 'isAttributeFilter',
    validator: {
      validate: (value: unknown) =>
        typeof value === 'object' &&
        value !== null &&
        !Array.isArray(value) &&
        Object.keys(value).length <= 20 &&
        Object.entries(value as Record<string, unknown>).every(
          ([k, v]) =>
            k.length > 0 &&
            k.length <= 100 &&
            ((typeof v === 'string' && v.length <= 200) ||
              typeof v === 'boolean' ||
              (typeof v === 'number' && Number.isFinite(v))),
        ),
      defaultMessage: () => 'must be an object of at most 20 attributes, each a string, number or boolean',
    },
  });

class CampaignFieldsDto {
  @ApiPropertyOptional({
    example: 'november-digest',
    maxLength: SLUG_MAX_LENGTH,
    description: 'Unique in the site; absent on create: made from the name',
  })
  @OptionalNotNull()
  @IsString()
  @MaxLength(SLUG_MAX_LENGTH)
  @Matches(SLUG_PATTERN, { message: SLUG_MESSAGE })
  slug?: string;

  @ApiPropertyOptional({ example: 'This week: {{ subscriber.name }}', maxLength: CAMPAIGN_LIMITS.subject })
  @OptionalNotNull()
  @IsHeaderText(CAMPAIGN_LIMITS.subject)
  subject?: string;

  @ApiPropertyOptional({ example: 'Three stories we liked', maxLength: CAMPAIGN_LIMITS.previewText })
  @OptionalNotNull()
  @IsHeaderText(CAMPAIGN_LIMITS.previewText)
  previewText?: string;

  @ApiPropertyOptional({ type: String, nullable: true, example: 'Demo Blog', description: 'null: the site’s sender' })
  @IsOptional()
  @IsHeaderText(CAMPAIGN_LIMITS.fromName)
  fromName?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, example: 'news@demo.example', description: 'null: the site’s' })
  @IsOptional()
  @IsMailAddress()
  fromAddress?: string | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'editor@demo.example',
    description: 'null: the site’s',
  })
  @IsOptional()
  @IsMailAddress()
  replyTo?: string | null;

  @ApiPropertyOptional({
    example: '<h1>Hello {{ subscriber.name }}</h1><p><a href="https://demo.example/post">Read</a></p>',
    maxLength: CAMPAIGN_LIMITS.contentHtml,
    description:
      'Liquid HTML rendered per recipient with `subscriber.name`, `subscriber.email`, `subscriber.attributes`, ' +
      '`preferencesUrl`, `unsubscribeUrl` and `campaign.name`; absolute links are rewritten for click tracking',
  })
  @OptionalNotNull()
  @IsString()
  @MaxLength(CAMPAIGN_LIMITS.contentHtml)
  contentHtml?: string;

  @ApiPropertyOptional({
    ...ID,
    nullable: true,
    example: null,
    description: 'An email template of type `newsletter.campaign` wrapping the content; null: the site’s published one',
  })
  @IsOptional()
  @IsInt()
  @Checked('stored data', 'Names an email template of this site of type `newsletter.campaign`.')
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  templateId?: number | null;

  @ApiPropertyOptional({ ...ID_LIST, example: [1], description: 'Target lists (up to 50) of the site' })
  @OptionalNotNull()
  @Checked('stored data', 'Each id names a list of this site.')
  @IsIdSet(50)
  listIds?: number[];

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] },
    nullable: true,
    example: { plan: 'pro' },
    description: 'Only subscribers whose attributes have all these values; null: everyone on the lists',
  })
  @IsOptional()
  @IsObject()
  @IsAttributeFilter()
  attributeFilter?: AttributeFilter | null;
}

export class CreateCampaignDto extends CampaignFieldsDto {
  @ApiProperty({ example: 'November digest', maxLength: CAMPAIGN_LIMITS.name })
  @IsNotEmpty()
  @IsHeaderText(CAMPAIGN_LIMITS.name)
  name: string;
}

/**
 * A partial update. `status` moves the campaign: `scheduled` (with `scheduledAt`, now or later)
 * starts its send at that time, `draft` takes it back, `paused` holds a send, `sending` resumes
 * it, `canceled` ends it (API.md §5).
 */
export class UpdateCampaignDto extends CampaignFieldsDto {
  @ApiPropertyOptional({ example: 'November digest', maxLength: CAMPAIGN_LIMITS.name })
  @OptionalNotNull()
  @IsNotEmpty()
  @IsHeaderText(CAMPAIGN_LIMITS.name)
  name?: string;

  @ApiPropertyOptional({ enum: ASKABLE, description: 'The move to make (others: 409)' })
  @OptionalNotNull()
  @IsIn(ASKABLE)
  status?: Exclude<CampaignStatus, 'sent'>;

  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    nullable: true,
    example: '2030-01-01T09:00:00Z',
    description: 'When the send starts (RFC 3339); with `status: scheduled`, absent or past: now',
  })
  @IsOptional()
  @IsTimestamp()
  scheduledAt?: Date | null;
}

export class CampaignQueryDto extends CursorQueryDto {
  @ApiPropertyOptional({ enum: CAMPAIGN_STATUSES })
  @IsOptional()
  @IsIn(CAMPAIGN_STATUSES)
  status?: CampaignStatus;
}

/** `GET …/campaigns/{id}`: the interface's `{idOrSlug}` (docs/openapi.md, one name per path shape). */
export class CampaignIdOrSlugParamDto extends IdOrSlugParam(
  'november-digest',
  'The id, or the slug: all digits (no leading zeros) is an id',
) {}

@CheckedBody('stored data', 'The campaign must be ready to send: a subject, a body or a template, Liquid that renders.')
export class CampaignTestSendDto {
  @ApiProperty({ type: [String], example: ['editor@demo.example'], description: '1 to 5 addresses' })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(5)
  @IsMailAddress({ each: true })
  emails: string[];
}

export class CampaignTestSendResponseDto {
  @ApiProperty({ example: 1 }) queued: number;
}

export class CampaignCountsDto {
  @ApiProperty({ type: 'integer', nullable: true, example: 120, description: 'Counted when the send started' })
  audience: number | null;
  @ApiProperty({ example: 120, description: 'Handed to the email module' }) sent: number;
  @ApiProperty({ example: 118 }) delivered: number;
  @ApiProperty({ example: 2 }) failed: number;
  @ApiProperty({ example: 60, description: 'People who opened, machines left out' }) uniqueOpens: number;
  @ApiProperty({ example: 20, description: 'People who clicked, machines left out' }) uniqueClicks: number;
  @ApiProperty({ example: 1 }) unsubscribes: number;
}

export class CampaignResponseDto {
  @ApiProperty({ ...ID, example: 1 }) id: number;
  @ApiProperty({ example: 'November digest' }) name: string;
  @ApiProperty({ example: 'november-digest' }) slug: string;
  @ApiProperty({ example: 'This week on Demo Blog' }) subject: string;
  @ApiProperty({ example: 'Three stories we liked' }) previewText: string;
  @ApiProperty({ type: String, nullable: true, example: null }) fromName: string | null;
  @ApiProperty({ type: String, nullable: true, example: null }) fromAddress: string | null;
  @ApiProperty({ type: String, nullable: true, example: null }) replyTo: string | null;
  @ApiProperty({ example: '<h1>Hello</h1>' }) contentHtml: string;
  @ApiProperty({ ...ID, nullable: true, example: null }) templateId: number | null;
  @ApiProperty({ ...ID_LIST, example: [1] }) listIds: number[];
  @ApiProperty({
    type: 'object',
    additionalProperties: { oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] },
    nullable: true,
    example: null,
  })
  attributeFilter: AttributeFilter | null;
  @ApiProperty({ enum: CAMPAIGN_STATUSES, example: 'draft' }) status: CampaignStatus;
  @ApiProperty({ ...DATE_TIME, nullable: true }) scheduledAt: string | null;
  @ApiProperty({ ...DATE_TIME, nullable: true }) startedAt: string | null;
  @ApiProperty({ ...DATE_TIME, nullable: true }) sentAt: string | null;
  @ApiProperty({ ...DATE_TIME, nullable: true }) canceledAt: string | null;
  @ApiProperty({ type: CampaignCountsDto }) counts: CampaignCountsDto;
  @ApiProperty({ ...DATE_TIME, example: '2026-11-24T10:00:00.000Z' }) createdAt: string;
  @ApiProperty({ ...DATE_TIME, example: '2026-11-24T10:00:00.000Z' }) updatedAt: string;
}

/** A campaign with its counters (read beside it). */
export interface CampaignWithStats {
  campaign: CampaignEntity;
  stats: CampaignStatsEntity | null;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function toCampaignResponse({ campaign: c, stats: s }: CampaignWithStats): CampaignResponseDto {
  return {
    id: c.id,
    name: c.name,
    slug: c.slug,
    subject: c.subject,
    previewText: c.previewText,
    fromName: c.fromName,
    fromAddress: c.fromAddress,
    replyTo: c.replyTo,
    contentHtml: c.contentHtml,
    templateId: c.templateId,
    listIds: c.listIds,
    attributeFilter: c.attributeFilter,
    status: c.status,
    scheduledAt: iso(c.scheduledAt),
    startedAt: iso(c.startedAt),
    sentAt: iso(c.sentAt),
    canceledAt: iso(c.canceledAt),
    counts: {
      audience: c.audienceCount,
      sent: c.recipientCount,
      delivered: s?.delivered ?? 0,
      failed: s?.failed ?? 0,
      uniqueOpens: s?.uniqueOpens ?? 0,
      uniqueClicks: s?.uniqueClicks ?? 0,
      unsubscribes: s?.unsubscribes ?? 0,
    },
    createdAt: c.createdAt.toISOString(),
    updatedAt: c.updatedAt.toISOString(),
  };
}
