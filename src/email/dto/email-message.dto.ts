import { ID } from '../../common/http/api-id';
import { DATE_TIME } from '../../common/http/api-date';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { CursorQueryDto } from '../../common/pagination/page';
import { EmailMessageEntity, MESSAGE_STATUSES, type MessageStatus } from '../entities/email-message.entity';
import { BODY_STATUSES, type BodyStatus, type ShownMessage } from '../mail-bodies';

export class EmailMessageQueryDto extends CursorQueryDto {
  @ApiPropertyOptional({ enum: MESSAGE_STATUSES })
  @IsOptional()
  @IsIn(MESSAGE_STATUSES)
  status?: MessageStatus;
}

export class EmailMessageSummaryDto {
  @ApiProperty({ ...ID, example: 12 }) id: number;
  @ApiProperty({ format: 'uuid', example: '0b0e8f7c-9d3e-4a53-9f5e-0d5b3c0f6a10' }) batchId: string;
  @ApiProperty({ example: 'ada@example.com' }) to: string;
  @ApiProperty({ enum: ['to', 'cc', 'bcc'], example: 'to' }) kind: string;
  @ApiProperty({
    example: 'Your order 1042 at Demo Blog',
    description: 'As stored: a secret value (a code, a link with a token) shows as `[redacted:<name>]`',
  })
  subject: string;
  @ApiProperty({ type: String, nullable: true, example: 'users.otp' }) templateType: string | null;
  @ApiProperty({ ...ID, nullable: true, example: null }) templateId: number | null;
  @ApiProperty({ type: [String], example: ['signup'] }) tags: string[];
  @ApiProperty({ enum: MESSAGE_STATUSES, example: 'sent' }) status: MessageStatus;
  @ApiProperty({ example: 1, description: 'Delivery attempts so far' }) attempts: number;
  @ApiProperty({
    type: String,
    nullable: true,
    example: '250 2.0.0 Ok: queued as 4F1A2',
    description: "The SMTP server's answer",
  })
  smtpResponse: string | null;
  @ApiProperty({ type: String, nullable: true, example: '<4f1a2@demo.example>' }) smtpMessageId: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    example: null,
    description: 'Why it failed, or why the last attempt did',
  })
  error: string | null;
  @ApiProperty({ ...DATE_TIME, nullable: true, example: '2026-01-01T00:00:01.000Z' }) sentAt: string | null;
  @ApiProperty({ ...DATE_TIME, nullable: true }) failedAt: string | null;
  @ApiProperty({ ...DATE_TIME, example: '2026-01-01T00:00:00.000Z' }) createdAt: string;
}

/** A message with what was sent: its headers and both parts. */
export class EmailMessageResponseDto extends EmailMessageSummaryDto {
  @ApiProperty({ example: 'Demo Blog <news@demo.example>' }) from: string;
  @ApiProperty({ type: String, nullable: true, example: null }) replyTo: string | null;
  @ApiProperty({ example: 'Ada <ada@example.com>', description: 'The To header every copy shows' }) toHeader: string;
  @ApiProperty({ type: String, nullable: true, example: null }) ccHeader: string | null;
  @ApiProperty({
    enum: BODY_STATUSES,
    example: 'stored',
    description:
      'Where `html` and `text` come from. `stored`: the copy as it was recorded. `rendered`: a campaign copy, which ' +
      'stores no body: rendered now from the campaign, the subscriber and the site’s template as they are now. ' +
      '`dropped`: a body kept for its window (EMAIL_BODY_RETENTION_DAYS, 30 days by default) and then dropped; ' +
      '`bodyDroppedAt` says when. `unavailable`: a campaign copy whose campaign or subscriber no longer exists. ' +
      '`html` and `text` are null for the last two.',
  })
  bodyStatus: BodyStatus;
  @ApiProperty({ ...DATE_TIME, nullable: true, example: null, description: 'When the body was dropped' })
  bodyDroppedAt: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    example: '<p>Your code is <strong>[redacted:code]</strong>.</p>',
    description:
      'What was sent, but for its secret values (sign-in codes, confirmation, preferences and unsubscribe links): ' +
      'each shows as `[redacted:<name>]`; only the recipient’s copy carried it (docs/email.md, "What is stored"). ' +
      'Null when `bodyStatus` is `dropped` or `unavailable`.',
  })
  html: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'Your code is [redacted:code].' }) text: string | null;
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    example: { 'List-Unsubscribe': '<[redacted:oneClickUnsubscribeUrl]>' },
    description:
      'Headers this copy carries beside the standard ones (campaign mail sets List-Unsubscribe; its link is redacted)',
  })
  headers: Record<string, string>;
}

export function toEmailMessageSummary(m: EmailMessageEntity): EmailMessageSummaryDto {
  return {
    id: m.id,
    batchId: m.batchId,
    to: m.recipient,
    kind: m.recipientKind,
    subject: m.subject,
    templateType: m.templateType,
    templateId: m.templateId,
    tags: m.tags,
    status: m.status,
    attempts: m.attempts,
    smtpResponse: m.smtpResponse,
    smtpMessageId: m.smtpMessageId,
    error: m.error,
    sentAt: m.sentAt?.toISOString() ?? null,
    failedAt: m.failedAt?.toISOString() ?? null,
    createdAt: m.createdAt.toISOString(),
  };
}

export function toEmailMessageResponse({ message: m, body }: ShownMessage): EmailMessageResponseDto {
  return {
    ...toEmailMessageSummary(m),
    from: m.fromHeader,
    replyTo: m.replyTo,
    toHeader: m.toHeader,
    ccHeader: m.ccHeader,
    bodyStatus: body.status,
    bodyDroppedAt: m.bodyDroppedAt?.toISOString() ?? null,
    html: body.html,
    text: body.text,
    headers: body.headers,
  };
}
