import { ID } from '../../common/http/api-id';
import { DATE_TIME } from '../../common/http/api-date';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsIn,
  IsOptional,
  IsString,
  MaxLength,
  ValidateBy,
  ValidationOptions,
} from 'class-validator';
import { OptionalNotNull } from '../../common/input/dto-rules';
import { CursorQueryDto } from '../../common/pagination/page';
import {
  type DisabledReason,
  ENDPOINT_STATUSES,
  type EndpointStatus,
  WebhookEndpointEntity,
} from '../entities/webhook-endpoint.entity';
import {
  eventTypeChoices,
  eventTypeProblem,
  headersProblem,
  MASKED_HEADER_VALUE,
  maskHeaders,
  MAX_HEADERS,
  urlProblem,
} from '../webhook-rules';
import { Checked } from '../../common/input/checked';
import { declareSchemaRule } from '../../common/openapi/openapi-rules';

const MAX_EVENT_TYPES = 100;

// The catalogue is complete once every module is loaded: read when the document is built.
declareSchemaRule('isEventTypeList', () => ({
  schema: { type: 'array', items: { type: 'string', enum: eventTypeChoices() } },
}));
declareSchemaRule('isEndpointUrl', { schema: { type: 'string', format: 'uri', pattern: '^https?://' } });
declareSchemaRule('isWebhookHeaders', {
  schema: { type: 'object', maxProperties: MAX_HEADERS, additionalProperties: { type: 'string', maxLength: 1000 } },
  described: 'Names are RFC 9110 tokens, each once; values are printable ASCII on one line.',
});

/** Event names, `<prefix>.*` or `*`, each known to the catalogue (docs/events.md). */
const IsEventTypeList = (options?: ValidationOptions) =>
  ValidateBy(
    {
      name: 'isEventTypeList',
      validator: {
        validate: (value: unknown) => Array.isArray(value) && value.every((v) => eventTypeProblem(v) === null),
        defaultMessage: (args) => {
          const list = Array.isArray(args?.value) ? (args.value as unknown[]) : [];
          const bad = list.map((v) => eventTypeProblem(v)).find((p) => p !== null);
          return bad ?? 'must be a list of event types';
        },
      },
    },
    options,
  );

/** An absolute http(s) URL without credentials or a fragment; the scheme the server allows and the host's addresses are the service's. */
const IsEndpointUrl = () =>
  ValidateBy({
    name: 'isEndpointUrl',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && urlProblem(value, true) === null,
      defaultMessage: (args) => (typeof args?.value === 'string' && urlProblem(args.value, true)) || 'must be a URL',
    },
  });

/** Header names and values an endpoint may add to its requests. */
const IsWebhookHeaders = () =>
  ValidateBy({
    name: 'isWebhookHeaders',
    validator: {
      validate: (value: unknown) => headersProblem(value) === null,
      defaultMessage: (args) => headersProblem(args?.value) ?? 'must be an object of header names and values',
    },
  });

const HEADERS_SCHEMA = {
  type: 'object',
  additionalProperties: { type: 'string' },
  maxProperties: MAX_HEADERS,
  example: { Authorization: 'Bearer 0123456789abcdef' },
} as const;

/** What a create and a PATCH both take, all optional. */
class WebhookEndpointFieldsDto {
  @ApiPropertyOptional({ example: 'Rebuild the static site', maxLength: 500 })
  @OptionalNotNull()
  @IsString()
  @MaxLength(500)
  description?: string;

  @ApiPropertyOptional({
    type: [String],
    example: ['content.published', 'media.*'],
    description:
      'Event types (docs/events.md), `<prefix>.*` (every event of a module) or `*` (all). Absent on create: `["*"]`',
  })
  @OptionalNotNull()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_EVENT_TYPES)
  @ArrayUnique()
  @IsEventTypeList()
  eventTypes?: string[];

  @ApiPropertyOptional({
    ...HEADERS_SCHEMA,
    description:
      `Up to ${MAX_HEADERS} extra request headers (not hop-by-hop, Host, Content-*, User-Agent or webhook-*). ` +
      `Values are write-only: answers show \`${MASKED_HEADER_VALUE}\` in their place. A PATCH without \`headers\` keeps ` +
      `them; with \`headers\` it replaces them all, except that a value sent as \`${MASKED_HEADER_VALUE}\` keeps the ` +
      'stored value of that name (so a GET can be sent back as is)',
  })
  @OptionalNotNull()
  @IsWebhookHeaders()
  headers?: Record<string, string>;

  @ApiPropertyOptional({
    enum: ENDPOINT_STATUSES,
    // The example's URL is nobody's receiver: made disabled, it is sent nothing until enabled.
    example: 'disabled',
    description: 'Absent on create: `enabled`. `enabled` on a disabled endpoint re-enables it',
  })
  @OptionalNotNull()
  @IsIn(ENDPOINT_STATUSES)
  status?: EndpointStatus;
}

const URL_DOC = {
  // A public IP literal: it needs no DNS, so the example runs on any install (hooks.example.com does not resolve).
  example: 'https://93.184.215.14/sitebase',
  description: 'An absolute https:// URL without credentials or a fragment',
  maxLength: 2000,
};
const URL_CHECKED = 'http:// only where the server allows it; the host must resolve to public addresses.';

export class CreateWebhookEndpointDto extends WebhookEndpointFieldsDto {
  @ApiProperty(URL_DOC)
  @Checked('configuration', URL_CHECKED)
  @IsString()
  @MaxLength(2000)
  @IsEndpointUrl()
  url: string;
}

export class UpdateWebhookEndpointDto extends WebhookEndpointFieldsDto {
  @ApiPropertyOptional(URL_DOC)
  @Checked('configuration', URL_CHECKED)
  @OptionalNotNull()
  @IsString()
  @MaxLength(2000)
  @IsEndpointUrl()
  url?: string;
}

export class WebhookEndpointQueryDto extends CursorQueryDto {
  @ApiPropertyOptional({ enum: ENDPOINT_STATUSES })
  @IsOptional()
  @IsIn(ENDPOINT_STATUSES)
  status?: EndpointStatus;
}

export class WebhookEndpointResponseDto {
  @ApiProperty({ ...ID, example: 1 }) id: number;
  @ApiProperty({ example: 'https://hooks.example.com/sitebase' }) url: string;
  @ApiProperty({ example: 'Rebuild the static site' }) description: string;
  @ApiProperty({ type: [String], example: ['content.published', 'media.*'] }) eventTypes: string[];
  @ApiProperty({
    ...HEADERS_SCHEMA,
    example: { Authorization: MASKED_HEADER_VALUE },
    description: `The extra request headers by name; every value is shown as \`${MASKED_HEADER_VALUE}\` (write-only)`,
  })
  headers: Record<string, string>;
  @ApiProperty({ enum: ENDPOINT_STATUSES, example: 'enabled' }) status: EndpointStatus;
  @ApiProperty({
    type: String,
    // null is one of the values: OpenAPI 3.0 validators hold a nullable enum to its list.
    enum: ['manual', 'failing', null],
    nullable: true,
    example: null,
    description: '`manual` (a PATCH) or `failing` (it failed for too long); null while enabled',
  })
  disabledReason: DisabledReason | null;
  @ApiProperty({ ...DATE_TIME, nullable: true }) disabledAt: string | null;
  @ApiProperty({
    ...DATE_TIME,
    nullable: true,
    description: 'Start of the current run of failures; null after a success',
  })
  failingSince: string | null;
  @ApiProperty({ ...DATE_TIME, nullable: true, example: '2026-01-01T00:00:05.000Z' }) lastSuccessAt: string | null;
  @ApiProperty({ ...DATE_TIME, nullable: true }) lastFailureAt: string | null;
  @ApiProperty({
    ...DATE_TIME,
    nullable: true,
    description: 'Until when the previous secret still signs too (after a rotation)',
  })
  previousSecretExpiresAt: string | null;
  @ApiProperty({ ...DATE_TIME, example: '2026-01-01T00:00:00.000Z' }) createdAt: string;
  @ApiProperty({ ...DATE_TIME, example: '2026-01-01T00:00:00.000Z' }) updatedAt: string;
}

/** The create's and the rotation's answer: the only ones that show the secret. */
export class WebhookEndpointWithSecretDto extends WebhookEndpointResponseDto {
  @ApiProperty({
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    description: 'Verifies the `webhook-signature` header (Standard Webhooks); shown only now, keep it',
  })
  secret: string;
}

const iso = (d: Date | null) => d?.toISOString() ?? null;

export function toWebhookEndpointResponse(e: WebhookEndpointEntity): WebhookEndpointResponseDto {
  return {
    id: e.id,
    url: e.url,
    description: e.description,
    eventTypes: e.eventTypes,
    headers: maskHeaders(e.headers),
    status: e.status,
    disabledReason: e.disabledReason,
    disabledAt: iso(e.disabledAt),
    failingSince: iso(e.failingSince),
    lastSuccessAt: iso(e.lastSuccessAt),
    lastFailureAt: iso(e.lastFailureAt),
    previousSecretExpiresAt: iso(e.previousSecretExpiresAt),
    createdAt: e.createdAt.toISOString(),
    updatedAt: e.updatedAt.toISOString(),
  };
}

export function toWebhookEndpointWithSecret(e: WebhookEndpointEntity): WebhookEndpointWithSecretDto {
  return { ...toWebhookEndpointResponse(e), secret: e.secret };
}
