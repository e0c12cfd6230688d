import { ID } from '../../common/http/api-id';
import { DATE_TIME } from '../../common/http/api-date';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { SiteIdParamDto } from '../../common/http/params';
import { IsIdParam, MAX_ID } from '../../common/input/dto-rules';
import { CursorQueryDto } from '../../common/pagination/page';
import { WebhookAttemptEntity } from '../entities/webhook-attempt.entity';
import { DELIVERY_STATUSES, type DeliveryStatus, WebhookDeliveryEntity } from '../entities/webhook-delivery.entity';
import { WEBHOOK_ERROR_KINDS, type AttemptResult, type WebhookErrorKind } from '../webhook-sender';

/** `:id/deliveries/:deliveryId`. */
export class WebhookDeliveryParamDto extends SiteIdParamDto {
  @ApiProperty({ ...ID, minimum: 1, maximum: MAX_ID, example: 1 })
  @IsIdParam()
  deliveryId: number;
}

export class WebhookDeliveryQueryDto extends CursorQueryDto {
  @ApiPropertyOptional({ enum: DELIVERY_STATUSES })
  @IsOptional()
  @IsIn(DELIVERY_STATUSES)
  status?: DeliveryStatus;
}

const ERROR_KIND_DOC = {
  type: String,
  enum: [...WEBHOOK_ERROR_KINDS, null],
  nullable: true,
  example: null,
  description:
    'timeout, connection (refused, reset), dns, blocked_address (a private address), tls, redirect (3xx, not ' +
    'followed), http_status (any other non-2xx)',
} as const;

export class WebhookDeliverySummaryDto {
  @ApiProperty({ ...ID, example: 7 }) id: number;
  @ApiProperty({
    example: 'msg_7',
    description: 'The `webhook-id` header: the same on every attempt (deduplicate on it)',
  })
  webhookId: string;
  @ApiProperty({ ...ID, nullable: true, example: 42, description: 'The event; null for a test' })
  eventId: number | null;
  @ApiProperty({ example: 'content.published' }) eventType: string;
  @ApiProperty({ enum: DELIVERY_STATUSES, example: 'succeeded' }) status: DeliveryStatus;
  @ApiProperty({ example: 1, description: 'Attempts in the current round' }) attempts: number;
  @ApiProperty({ ...DATE_TIME, nullable: true, description: 'When the next attempt is due' })
  nextAttemptAt: string | null;
  @ApiProperty({ ...DATE_TIME, nullable: true, example: '2026-01-01T00:00:01.000Z' }) lastAttemptAt: string | null;
  @ApiProperty({ type: 'integer', nullable: true, example: 200 }) lastStatusCode: number | null;
  @ApiProperty(ERROR_KIND_DOC) lastErrorKind: WebhookErrorKind | null;
  @ApiProperty({ type: String, nullable: true, example: null }) lastError: string | null;
  @ApiProperty({ ...DATE_TIME, nullable: true, example: '2026-01-01T00:00:01.000Z' }) deliveredAt: string | null;
  @ApiProperty({ ...DATE_TIME, example: '2026-01-01T00:00:00.000Z' }) createdAt: string;
}

export class WebhookAttemptDto {
  @ApiProperty({ ...ID, example: 3 }) id: number;
  @ApiProperty({ ...DATE_TIME, example: '2026-01-01T00:00:01.000Z' }) attemptedAt: string;
  @ApiProperty({ type: 'integer', nullable: true, example: 200 }) statusCode: number | null;
  @ApiProperty({ example: 12 }) durationMs: number;
  @ApiProperty({ example: 'ok', description: 'The first 500 characters of the answer' }) responseExcerpt: string;
  @ApiProperty(ERROR_KIND_DOC) errorKind: WebhookErrorKind | null;
  @ApiProperty({ type: String, nullable: true, example: null }) error: string | null;
}

/** A delivery with what it sends and every attempt, oldest first. */
export class WebhookDeliveryResponseDto extends WebhookDeliverySummaryDto {
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    example: { type: 'content.published', timestamp: '2026-01-01T00:00:00.000Z', data: { id: 1 } },
    description: 'The body every attempt sends: `{ type, timestamp, data }`',
  })
  payload: Record<string, unknown>;
  @ApiProperty({ type: [WebhookAttemptDto], description: 'Every attempt of the delivery, oldest first' })
  attemptLog: WebhookAttemptDto[];
}

/** What POST …/test answers: the outcome of its one attempt. */
export class WebhookTestResultDto {
  @ApiProperty({ example: true, description: 'The endpoint answered 2xx' }) ok: boolean;
  @ApiProperty({ ...ID, example: 12, description: 'The delivery in the log' }) deliveryId: number;
  @ApiProperty({ example: 'msg_12' }) webhookId: string;
  @ApiProperty({ type: 'integer', nullable: true, example: 200 }) statusCode: number | null;
  @ApiProperty({ example: 35 }) durationMs: number;
  @ApiProperty({ example: 'ok' }) responseExcerpt: string;
  @ApiProperty(ERROR_KIND_DOC) errorKind: WebhookErrorKind | null;
  @ApiProperty({ type: String, nullable: true, example: null }) error: string | null;
}

const iso = (d: Date | null) => d?.toISOString() ?? null;

export const webhookIdOf = (deliveryId: number) => `msg_${deliveryId}`;

export function toWebhookDeliverySummary(d: WebhookDeliveryEntity): WebhookDeliverySummaryDto {
  return {
    id: d.id,
    webhookId: webhookIdOf(d.id),
    eventId: d.eventId,
    eventType: d.eventType,
    status: d.status,
    attempts: d.attempts,
    nextAttemptAt: d.status === 'pending' ? iso(d.nextAttemptAt) : null,
    lastAttemptAt: iso(d.lastAttemptAt),
    lastStatusCode: d.lastStatusCode,
    lastErrorKind: d.lastErrorKind,
    lastError: d.lastError,
    deliveredAt: iso(d.deliveredAt),
    createdAt: d.createdAt.toISOString(),
  };
}

export function toWebhookAttempt(a: WebhookAttemptEntity): WebhookAttemptDto {
  return {
    id: a.id,
    attemptedAt: a.attemptedAt.toISOString(),
    statusCode: a.statusCode,
    durationMs: a.durationMs,
    responseExcerpt: a.responseExcerpt,
    errorKind: a.errorKind,
    error: a.error,
  };
}

export function toWebhookDeliveryResponse(
  d: WebhookDeliveryEntity,
  attempts: WebhookAttemptEntity[],
): WebhookDeliveryResponseDto {
  return {
    ...toWebhookDeliverySummary(d),
    payload: JSON.parse(d.payload) as Record<string, unknown>,
    attemptLog: attempts.map(toWebhookAttempt),
  };
}

export function toWebhookTestResult(deliveryId: number, r: AttemptResult): WebhookTestResultDto {
  return {
    ok: r.ok,
    deliveryId,
    webhookId: webhookIdOf(deliveryId),
    statusCode: r.statusCode,
    durationMs: r.durationMs,
    responseExcerpt: r.responseExcerpt,
    errorKind: r.errorKind,
    error: r.error,
  };
}
