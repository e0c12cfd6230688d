import { ID } from '../../common/http/api-id';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsInt,
  IsNotEmpty,
  IsObject,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { NestedArray, OptionalNotNull } from '../../common/input/dto-rules';
import { IsHeaderText, IsMailAddress } from '../../common/input/mail-rules';
import type { EmailMessageEntity, MessageStatus, RecipientKind } from '../entities/email-message.entity';
import { MESSAGE_STATUSES } from '../entities/email-message.entity';
import { MAX_RECIPIENTS } from '../email.service';
import { TEMPLATE_TYPE_PATTERN } from './template-type.dto';
import { Checked } from '../../common/input/checked';

export class RecipientDto {
  @ApiProperty({ example: 'ada@example.com' }) @IsMailAddress() email: string;
  @ApiPropertyOptional({ example: 'Ada Lovelace' }) @OptionalNotNull() @IsHeaderText(200) name?: string;
}

/**
 * A mail to up to 50 recipients: either its own `subject` and `html`/`text`, or a template
 * (`templateType`: the site's published one or the built-in default; or `templateId`) with
 * `data` for its variables.
 */
export class SendEmailDto {
  @ApiProperty({ type: [RecipientDto], description: 'At least one; with cc and bcc, at most 50 in all' })
  @ArrayMinSize(1)
  @NestedArray(() => RecipientDto, MAX_RECIPIENTS)
  to: RecipientDto[];

  @ApiPropertyOptional({ type: [RecipientDto] })
  @OptionalNotNull()
  @NestedArray(() => RecipientDto, MAX_RECIPIENTS)
  cc?: RecipientDto[];

  @ApiPropertyOptional({ type: [RecipientDto], description: 'Not shown to the other recipients' })
  @OptionalNotNull()
  @NestedArray(() => RecipientDto, MAX_RECIPIENTS)
  bcc?: RecipientDto[];

  @ApiPropertyOptional({ type: RecipientDto, description: "Absent: the site's reply-to, if it set one" })
  @OptionalNotNull()
  @IsObject()
  @ValidateNested()
  @Type(() => RecipientDto)
  replyTo?: RecipientDto;

  @Checked('other fields', 'Exactly one of `templateType`, `templateId` or `subject` (with `html` or `text`).')
  @ApiPropertyOptional({ example: 'Welcome aboard', description: 'With html or text; not with a template' })
  @OptionalNotNull()
  @IsNotEmpty()
  @IsHeaderText(998)
  subject?: string;

  @Checked('other fields', 'With `subject`, `html` or `text` is required.')
  @ApiPropertyOptional({ example: '<p>Glad to have you.</p>', description: 'Sent as given; <style> is inlined' })
  @OptionalNotNull()
  @IsString()
  @MaxLength(1_000_000)
  html?: string;

  @Checked('other fields', 'With `subject`, `html` or `text` is required.')
  @ApiPropertyOptional({ example: 'Glad to have you.', description: 'Absent: made from the HTML' })
  @OptionalNotNull()
  @IsString()
  @MaxLength(1_000_000)
  text?: string;

  @Checked('other fields', 'Exactly one of `templateType`, `templateId` or `subject` (with `html` or `text`).')
  @ApiPropertyOptional({
    example: 'users.otp',
    description: "The site's published template of this type, else the default",
  })
  @OptionalNotNull()
  @IsString()
  @MaxLength(100)
  @Matches(TEMPLATE_TYPE_PATTERN, { message: 'must be a template type such as users.otp' })
  templateType?: string;

  @Checked('other fields', 'Exactly one of `templateType`, `templateId` or `subject` (with `html` or `text`).')
  @ApiPropertyOptional({
    ...ID,
    minimum: 1,
    example: 3,
    description: 'A template of the site, draft or published',
  })
  @OptionalNotNull()
  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  templateId?: number;

  @Checked('stored data', "Only with a template; checked against its type's variables.")
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    example: { code: '482913', expiresInMinutes: 10 },
    description: "The template's variables, checked against its type",
  })
  @OptionalNotNull()
  @IsObject()
  data?: Record<string, unknown>;

  @ApiPropertyOptional({
    type: [String],
    example: ['signup'],
    description: 'Up to 10 labels, for filtering and webhooks',
  })
  @OptionalNotNull()
  @IsArray()
  @ArrayMaxSize(10)
  @ArrayUnique()
  @IsString({ each: true })
  @Matches(/^[a-z0-9][a-z0-9_.-]{0,63}$/, { each: true, message: 'each tag must be 1-64 of a-z, 0-9, _ . -' })
  tags?: string[];
}

export class QueuedMessageDto {
  @ApiProperty({ ...ID, example: 12 }) id: number;
  @ApiProperty({ example: 'ada@example.com' }) to: string;
  @ApiProperty({ enum: ['to', 'cc', 'bcc'], example: 'to' }) kind: RecipientKind;
  @ApiProperty({ enum: MESSAGE_STATUSES, example: 'queued' }) status: MessageStatus;
}

export class SendEmailResponseDto {
  @ApiProperty({ format: 'uuid', example: '0b0e8f7c-9d3e-4a53-9f5e-0d5b3c0f6a10' }) batchId: string;
  @ApiProperty({ type: [QueuedMessageDto], description: 'One message per recipient' }) messages: QueuedMessageDto[];
}

export function toSendEmailResponse(messages: EmailMessageEntity[]): SendEmailResponseDto {
  return {
    batchId: messages[0].batchId,
    messages: messages.map((m) => ({ id: m.id, to: m.recipient, kind: m.recipientKind, status: m.status })),
  };
}
