import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, ArrayUnique, IsArray, IsOptional } from 'class-validator';
import { IsMailAddress } from '../../common/input/mail-rules';
import { ContactsSettings } from '../../common/tenancy/site-settings';

/**
 * The `contacts` section of a site's settings (docs/contacts.md), in and out; the site's DTO
 * (src/account/dto/site.dto.ts) holds it with the other modules' sections.
 */

/** At most this many addresses are told of each contact message. */
export const MAX_NOTIFY_EMAILS = 10;

/** The contact inbox (docs/contacts.md); null clears the list. */
export class ContactsSettingsDto {
  @ApiPropertyOptional({
    type: [String],
    nullable: true,
    maxItems: MAX_NOTIFY_EMAILS,
    example: ['team@demo.example'],
    description:
      'Who receives a `contacts.received` mail for each new contact message (lower-cased); empty or null: no mail',
  })
  @IsOptional()
  @Transform(({ value }: { value: unknown }) =>
    Array.isArray(value) ? (value as unknown[]).map((v) => (typeof v === 'string' ? v.toLowerCase() : v)) : value,
  )
  @IsMailAddress({ each: true })
  @ArrayUnique()
  @ArrayMaxSize(MAX_NOTIFY_EMAILS)
  @IsArray()
  notifyEmails?: string[] | null;
}

export class ContactsSettingsResponseDto {
  @ApiProperty({ type: [String], example: ['team@demo.example'], description: 'Empty: no mail' })
  notifyEmails: string[];
}

/** The section as a site's answer shows it. */
export function toContactsSettings(contacts: ContactsSettings | undefined): ContactsSettingsResponseDto {
  return { notifyEmails: contacts?.notifyEmails ?? [] };
}
