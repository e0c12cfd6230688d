import { ID } from '../../common/http/api-id';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { DATE_TIME } from '../../common/http/api-date';
import { IsMailAddress } from '../../common/input/mail-rules';
import { CursorQueryDto } from '../../common/pagination/page';
import { EmailSuppressionEntity, SUPPRESSION_REASONS, type SuppressionReason } from '../entities/email-bounce.entity';

/** Addresses are kept lower-cased: a filter or a new entry is compared in that case. */
const lowerCase = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim().toLowerCase() : value);

export class SuppressionQueryDto extends CursorQueryDto {
  @ApiPropertyOptional({ enum: SUPPRESSION_REASONS })
  @IsOptional()
  @IsIn(SUPPRESSION_REASONS)
  reason?: SuppressionReason;

  @ApiPropertyOptional({ description: 'One address (any case)', example: 'no-mail@example.com', maxLength: 254 })
  @IsOptional()
  @Transform(lowerCase)
  @IsString()
  @MaxLength(254)
  email?: string;
}

export class CreateSuppressionDto {
  @ApiProperty({ example: 'no-mail@example.com', maxLength: 254, description: 'Kept lower-cased' })
  @Transform(lowerCase)
  @IsMailAddress()
  email: string;

  @ApiPropertyOptional({ example: 'Asked by phone to receive nothing', maxLength: 500 })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  note?: string;
}

export class LiftSuppressionQueryDto {
  @ApiProperty({
    example: 'The mailbox works again (confirmed by phone)',
    maxLength: 500,
    description: 'Why it is lifted: kept in the `email.suppression.lifted` event',
  })
  @IsString()
  @IsNotEmpty()
  @MaxLength(500)
  reason: string;
}

export class SuppressionResponseDto {
  @ApiProperty({ ...ID, example: 7 }) id: number;
  @ApiProperty({ example: 'ada@example.com' }) email: string;
  @ApiProperty({
    enum: SUPPRESSION_REASONS,
    example: 'manual',
    description: '`bounced` (a hard bounce, or soft ones past the limit), `complained` (a spam report), `manual`',
  })
  reason: SuppressionReason;
  @ApiProperty({ type: String, nullable: true, example: 'Asked by phone to receive nothing' }) note: string | null;
  @ApiProperty({
    ...ID,
    nullable: true,
    example: null,
    description: 'The message whose bounce or complaint suppressed it',
  })
  messageId: number | null;
  @ApiProperty({ ...DATE_TIME, example: '2026-01-01T00:00:00.000Z' }) createdAt: string;
  @ApiProperty({ ...DATE_TIME, example: '2026-01-01T00:00:00.000Z' }) updatedAt: string;
}

export function toSuppressionResponse(s: EmailSuppressionEntity): SuppressionResponseDto {
  return {
    id: s.id,
    email: s.email,
    reason: s.reason,
    note: s.note,
    messageId: s.messageId,
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
  };
}
