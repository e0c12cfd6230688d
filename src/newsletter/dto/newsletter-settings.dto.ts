import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { NewsletterSettings } from '../../common/tenancy/site-settings';

/**
 * The `newsletter` section of a site's settings (docs/newsletter.md), in and out; the site's DTO
 * (src/account/dto/site.dto.ts) holds it with the other modules' sections.
 */

/** The newsletter audience (docs/newsletter.md); null clears a field. */
export class NewsletterSettingsDto {
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'https://blog.example.com/thanks',
    description: 'Where a browser is sent (303) once it confirms a subscription; null: a page in the site’s name',
  })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  @Matches(/^https?:\/\/[^\s/?#]+([/?#]\S*)?$/, { message: 'must be an http(s) URL' })
  confirmRedirectUrl?: string | null;

  @ApiPropertyOptional({
    type: Boolean,
    nullable: true,
    example: true,
    description:
      'Deleting a subscription keeps a hash of its address, so import, sync and bulk never add it again; null: false',
  })
  @IsOptional()
  @IsBoolean()
  suppressOnDelete?: boolean | null;

  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    minimum: 1,
    maximum: 1_000_000,
    example: 6000,
    description: 'Campaign mails a minute at most; null: the server’s NEWSLETTER_SEND_RATE_PER_MINUTE',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  sendRatePerMinute?: number | null;
}

export class NewsletterSettingsResponseDto {
  @ApiProperty({ type: String, nullable: true, example: null }) confirmRedirectUrl: string | null;
  @ApiProperty({ example: false }) suppressOnDelete: boolean;
  @ApiProperty({ type: 'integer', nullable: true, example: null, description: 'null: the server’s default' })
  sendRatePerMinute: number | null;
}

/** The section as a site's answer shows it. */
export function toNewsletterSettings(newsletter: NewsletterSettings | undefined): NewsletterSettingsResponseDto {
  return {
    confirmRedirectUrl: newsletter?.confirmRedirectUrl ?? null,
    suppressOnDelete: newsletter?.suppressOnDelete ?? false,
    sendRatePerMinute: newsletter?.sendRatePerMinute ?? null,
  };
}
