import { ID } from '../../common/http/api-id';
import { DATE_TIME } from '../../common/http/api-date';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsNotEmpty, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { IsTimestamp, OptionalNotNull } from '../../common/input/dto-rules';
import { CursorQueryDto } from '../../common/pagination/page';
import { CREDIT_KINDS, type CreditKind, CreditEntryEntity } from '../entities/credit-entry.entity';
import { Checked } from '../../common/input/checked';

export const MAX_CREDITS = 1_000_000_000;

export class GrantCreditsDto {
  @ApiProperty({ type: 'integer', minimum: 1, maximum: MAX_CREDITS, example: 500 })
  @IsInt()
  @Min(1)
  @Max(MAX_CREDITS)
  amount: number;

  @ApiProperty({ example: 'Welcome bonus', maxLength: 500 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(500)
  reason: string;

  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    nullable: true,
    example: '2027-01-01T00:00:00.000Z',
    description: 'When what is left of the grant stops counting; absent or null: never',
  })
  @IsOptional()
  @Checked('time', 'In the future.')
  @IsTimestamp()
  expiresAt?: Date | null;

  @ApiPropertyOptional({ example: 'promo-2026', maxLength: 200, description: 'Your reference, for reconciliation' })
  @OptionalNotNull()
  @IsString()
  @MaxLength(200)
  reference?: string;
}

export class SpendCreditsDto {
  @ApiProperty({ type: 'integer', minimum: 1, maximum: MAX_CREDITS, example: 120 })
  @IsInt()
  @Min(1)
  @Max(MAX_CREDITS)
  amount: number;

  @ApiProperty({ example: 'Download of a report', maxLength: 500 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(500)
  reason: string;

  @ApiPropertyOptional({ example: 'report-77', maxLength: 200 })
  @OptionalNotNull()
  @IsString()
  @MaxLength(200)
  reference?: string;
}

export class CreditLedgerQueryDto extends CursorQueryDto {}

export class CreditBalanceDto {
  @ApiProperty({ example: 380, description: 'What can be spent now: grants not spent and not expired' })
  balance: number;
}

export class CreditEntryDto {
  @ApiProperty({ ...ID, example: 9 }) id: number;
  @ApiProperty({ enum: CREDIT_KINDS, example: 'grant' }) kind: CreditKind;
  @ApiProperty({ example: 500, description: 'Signed: grants and refunds add, spends and expiries take away' })
  amount: number;
  @ApiProperty({ example: 380, description: 'Of a grant or refund: what is left of it; 0 otherwise' })
  remaining: number;
  @ApiProperty({ example: 'Welcome bonus' }) reason: string;
  @ApiProperty({ type: String, nullable: true, example: 'promo-2026' }) reference: string | null;
  @ApiProperty({ ...DATE_TIME, nullable: true }) expiresAt: string | null;
  @ApiProperty({ ...DATE_TIME, example: '2026-01-01T00:00:00.000Z' }) createdAt: string;
}

/** A grant's or spend's answer: the ledger line and the balance after it. */
export class CreditChangeDto {
  @ApiProperty({ type: CreditEntryDto }) entry: CreditEntryDto;
  @ApiProperty({ example: 880 }) balance: number;
}

export function toCreditEntry(e: CreditEntryEntity): CreditEntryDto {
  return {
    id: e.id,
    kind: e.kind,
    amount: e.amount,
    remaining: e.remaining,
    reason: e.reason,
    reference: e.reference,
    expiresAt: e.expiresAt?.toISOString() ?? null,
    createdAt: e.createdAt.toISOString(),
  };
}
