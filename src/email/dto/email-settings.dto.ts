import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { IsHeaderText, IsMailAddress } from '../../common/input/mail-rules';
import { EmailSettings } from '../../common/tenancy/site-settings';

/**
 * The `email` section of a site's settings (docs/email.md), in and out; the site's DTO
 * (src/account/dto/site.dto.ts) holds it with the other modules' sections.
 */

/** The sender of the site's mail; null clears a field (MAIL_FROM applies again). */
export class EmailSettingsDto {
  @ApiPropertyOptional({ type: String, nullable: true, example: 'Demo Blog' })
  @IsOptional()
  @IsHeaderText(200)
  fromName?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true, example: 'news@demo.example' })
  @IsOptional()
  @IsMailAddress()
  fromAddress?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true, example: 'editors@demo.example' })
  @IsOptional()
  @IsMailAddress()
  replyTo?: string | null;
  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    minimum: 1,
    maximum: 100,
    example: 3,
    description: 'Soft bounces of an address within softBounceWindowDays that mark it bounced; null: BOUNCE_SOFT_LIMIT',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(100)
  softBounceLimit?: number | null;
  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    minimum: 1,
    maximum: 365,
    example: 7,
    description: 'The window of softBounceLimit, in days; null: BOUNCE_SOFT_WINDOW_DAYS',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(365)
  softBounceWindowDays?: number | null;
}

export class EmailSettingsResponseDto {
  @ApiProperty({ type: String, nullable: true, example: 'Demo Blog' }) fromName: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'news@demo.example' }) fromAddress: string | null;
  @ApiProperty({ type: String, nullable: true, example: null }) replyTo: string | null;
  @ApiProperty({ type: 'integer', nullable: true, example: null, description: 'null: the server’s BOUNCE_SOFT_LIMIT' })
  softBounceLimit: number | null;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    example: null,
    description: 'null: the server’s BOUNCE_SOFT_WINDOW_DAYS',
  })
  softBounceWindowDays: number | null;
}

/** The section as a site's answer shows it: null for what the site did not set. */
export function toEmailSettings(email: EmailSettings | undefined): EmailSettingsResponseDto {
  return {
    fromName: email?.fromName ?? null,
    fromAddress: email?.fromAddress ?? null,
    replyTo: email?.replyTo ?? null,
    softBounceLimit: email?.softBounceLimit ?? null,
    softBounceWindowDays: email?.softBounceWindowDays ?? null,
  };
}
