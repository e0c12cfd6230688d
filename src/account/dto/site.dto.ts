import { ID } from '../../common/http/api-id';
import { DATE_TIME } from '../../common/http/api-date';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsObject, IsOptional, IsString, Matches, MaxLength, ValidateNested } from 'class-validator';
import { SITE_NAME_PATTERN } from '../../common/auth/principal';
import { OptionalNotNull } from '../../common/input/dto-rules';
import { SiteEntity } from '../../common/tenancy/entities/site.entity';
import {
  ContactsSettingsDto,
  ContactsSettingsResponseDto,
  toContactsSettings,
} from '../../contacts/dto/contacts-settings.dto';
import { EmailSettingsDto, EmailSettingsResponseDto, toEmailSettings } from '../../email/dto/email-settings.dto';
import {
  NewsletterSettingsDto,
  NewsletterSettingsResponseDto,
  toNewsletterSettings,
} from '../../newsletter/dto/newsletter-settings.dto';
import { OrdersSettingsDto, OrdersSettingsResponseDto, toOrdersSettings } from '../../orders/dto/orders-settings.dto';
import {
  SubscriptionsSettingsDto,
  SubscriptionsSettingsResponseDto,
  toSubscriptionsSettings,
} from '../../users/dto/subscriptions-settings.dto';

export class CreateSiteDto {
  @ApiProperty({
    example: 'my-blog',
    pattern: SITE_NAME_PATTERN.source,
    description: 'Unique across the installation; used in paths',
  })
  @IsString()
  @Matches(SITE_NAME_PATTERN, {
    message: 'must be lower-case letters, digits and dashes, starting with a letter or digit (at most 63)',
  })
  name: string;

  @ApiPropertyOptional({ example: 'My blog' })
  @OptionalNotNull()
  @IsString()
  @MaxLength(200)
  title?: string;
}

/**
 * Sections of the site's settings; each module adds its own (src/common/tenancy/site-settings.ts),
 * declared in its dto/ folder (`<module>-settings.dto.ts`), and composes it here.
 */
export class SiteSettingsDto {
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'https://blog.example.com',
    description: "Origin of the links in this site's mail; null: PUBLIC_BASE_URL",
  })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  @Matches(/^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/, {
    message: 'must be an http(s) URL such as https://blog.example.com',
  })
  publicBaseUrl?: string | null;

  @ApiPropertyOptional({ type: EmailSettingsDto, description: "The sender of the site's mail" })
  @OptionalNotNull()
  @IsObject()
  @ValidateNested()
  @Type(() => EmailSettingsDto)
  email?: EmailSettingsDto;

  @ApiPropertyOptional({ type: ContactsSettingsDto, description: 'The contact inbox: who is told of new messages' })
  @OptionalNotNull()
  @IsObject()
  @ValidateNested()
  @Type(() => ContactsSettingsDto)
  contacts?: ContactsSettingsDto;
  @ApiPropertyOptional({
    type: OrdersSettingsDto,
    description: "The tax of the site's orders, and how long unpaid ones hold their stock",
  })
  @OptionalNotNull()
  @IsObject()
  @ValidateNested()
  @Type(() => OrdersSettingsDto)
  orders?: OrdersSettingsDto;
  @ApiPropertyOptional({ type: NewsletterSettingsDto, description: 'The newsletter audience' })
  @OptionalNotNull()
  @IsObject()
  @ValidateNested()
  @Type(() => NewsletterSettingsDto)
  newsletter?: NewsletterSettingsDto;
  @ApiPropertyOptional({
    type: SubscriptionsSettingsDto,
    description: 'Site users’ subscriptions: how long an unpaid period charge is waited for',
  })
  @OptionalNotNull()
  @IsObject()
  @ValidateNested()
  @Type(() => SubscriptionsSettingsDto)
  subscriptions?: SubscriptionsSettingsDto;
}

/** A partial update: fields left out stay as they are; in settings, null clears a field. */
export class UpdateSiteDto {
  @ApiPropertyOptional({ example: 'My blog' })
  @OptionalNotNull()
  @IsString()
  @MaxLength(200)
  title?: string;

  @ApiPropertyOptional({ type: SiteSettingsDto })
  @OptionalNotNull()
  @IsObject()
  @ValidateNested()
  @Type(() => SiteSettingsDto)
  settings?: SiteSettingsDto;
}

/** What the site set; null: the configuration's value applies. */
export class SiteSettingsResponseDto {
  @ApiProperty({ type: String, nullable: true, example: null }) publicBaseUrl: string | null;
  @ApiProperty({ type: EmailSettingsResponseDto }) email: EmailSettingsResponseDto;
  @ApiProperty({ type: ContactsSettingsResponseDto }) contacts: ContactsSettingsResponseDto;
  @ApiProperty({ type: OrdersSettingsResponseDto }) orders: OrdersSettingsResponseDto;
  @ApiProperty({ type: NewsletterSettingsResponseDto }) newsletter: NewsletterSettingsResponseDto;
  @ApiProperty({ type: SubscriptionsSettingsResponseDto }) subscriptions: SubscriptionsSettingsResponseDto;
}

export class SiteResponseDto {
  @ApiProperty({ ...ID, example: 1 }) id: number;
  @ApiProperty({ example: 'demo' }) name: string;
  @ApiProperty({ example: 'Demo site' }) title: string;
  @ApiProperty({ ...ID, example: 1, description: 'The account (v1 organization_id) that owns the site' })
  accountId: number;
  @ApiProperty({ type: SiteSettingsResponseDto }) settings: SiteSettingsResponseDto;
  @ApiProperty({ ...DATE_TIME, example: '2026-01-01T00:00:00.000Z' }) createdAt: string;
  @ApiProperty({ ...DATE_TIME, example: '2026-01-01T00:00:00.000Z' }) updatedAt: string;
}

export function toSiteResponse(site: SiteEntity): SiteResponseDto {
  return {
    id: site.id,
    name: site.name,
    title: site.title,
    accountId: site.accountId,
    settings: {
      publicBaseUrl: site.settings.publicBaseUrl ?? null,
      email: toEmailSettings(site.settings.email),
      contacts: toContactsSettings(site.settings.contacts),
      orders: toOrdersSettings(site.settings.orders),
      newsletter: toNewsletterSettings(site.settings.newsletter),
      subscriptions: toSubscriptionsSettings(site.settings.subscriptions),
    },
    createdAt: site.createdAt.toISOString(),
    updatedAt: site.updatedAt.toISOString(),
  };
}
