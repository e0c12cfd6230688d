import { ID } from '../../common/http/api-id';
import { DATE_TIME } from '../../common/http/api-date';
import { ApiProperty, ApiPropertyOptional, PartialType, PickType } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsNotEmpty, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { IsTimestamp, IsWordSet, OptionalNotNull } from '../../common/input/dto-rules';
import { IsBoundedJsonObject } from '../../common/input/json-rules';
import { IsHeaderText, IsMailAddress } from '../../common/input/mail-rules';
import { CursorQueryDto } from '../../common/pagination/page';
import { CONTACT_STATUSES, ContactEntity, type ContactStatus } from '../entities/contact.entity';

/** The length of every field a sender or an operator writes (docs/contacts.md). */
export const CONTACT_LIMITS = {
  name: 200,
  phone: 50,
  company: 200,
  subject: 200,
  message: 10_000,
  source: 50,
  tags: 20,
  tag: 50,
  honeypot: 2000,
} as const;

/** `metadata`: a small JSON object (page URL, campaign), not a store. */
export const METADATA_LIMITS = { maxDepth: 3, maxBytes: 4096 } as const;

export const SOURCE_PATTERN = /^[a-z0-9][a-z0-9._-]*$/;
const SOURCE_MESSAGE =
  'must be lower-case letters, digits, dots, dashes and underscores, starting with a letter or digit';

/** Addresses are compared and stored in lower case. */
const lowerCase = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.toLowerCase() : value);

const METADATA_DOC = {
  type: 'object',
  additionalProperties: true,
  example: { page: '/pricing', utm_campaign: 'spring' },
  description: `A JSON object of at most ${METADATA_LIMITS.maxDepth} levels and ${METADATA_LIMITS.maxBytes} bytes`,
} as const;

/** What a contact form sends (`POST …/contacts`, anyone). */
export class CreateContactDto {
  @ApiProperty({ example: 'Grace Hopper', maxLength: CONTACT_LIMITS.name })
  @IsNotEmpty()
  @IsHeaderText(CONTACT_LIMITS.name)
  name: string;

  @ApiProperty({ example: 'grace@example.com', maxLength: 254, description: 'Stored in lower case' })
  @Transform(lowerCase)
  @IsMailAddress()
  email: string;

  @ApiPropertyOptional({ example: '+1 555 0100', maxLength: CONTACT_LIMITS.phone })
  @OptionalNotNull()
  @IsHeaderText(CONTACT_LIMITS.phone)
  phone?: string;

  @ApiPropertyOptional({ example: 'Navy', maxLength: CONTACT_LIMITS.company })
  @OptionalNotNull()
  @IsHeaderText(CONTACT_LIMITS.company)
  company?: string;

  @ApiPropertyOptional({ example: 'Shipping to Canada', maxLength: CONTACT_LIMITS.subject })
  @OptionalNotNull()
  @IsHeaderText(CONTACT_LIMITS.subject)
  subject?: string;

  @ApiProperty({ example: 'Hello! Do you ship to Canada?', maxLength: CONTACT_LIMITS.message })
  @IsString()
  @IsNotEmpty()
  @MaxLength(CONTACT_LIMITS.message)
  message: string;

  @ApiPropertyOptional({
    example: 'contact-form',
    maxLength: CONTACT_LIMITS.source,
    pattern: SOURCE_PATTERN.source,
    description: 'Which form or page sent it. Absent: `contact-form`',
  })
  @OptionalNotNull()
  @IsString()
  @MaxLength(CONTACT_LIMITS.source)
  @Matches(SOURCE_PATTERN, { message: SOURCE_MESSAGE })
  source?: string;

  @ApiPropertyOptional({
    type: [String],
    maxItems: CONTACT_LIMITS.tags,
    example: ['sales'],
    description: `At most ${CONTACT_LIMITS.tags} distinct words of at most ${CONTACT_LIMITS.tag} characters`,
  })
  @OptionalNotNull()
  @IsWordSet(CONTACT_LIMITS.tags, CONTACT_LIMITS.tag)
  tags?: string[];

  @ApiPropertyOptional(METADATA_DOC)
  @OptionalNotNull()
  @IsBoundedJsonObject(METADATA_LIMITS)
  metadata?: Record<string, unknown>;

  @ApiPropertyOptional({
    example: '',
    maxLength: CONTACT_LIMITS.honeypot,
    description:
      'A honeypot: leave it out or empty. Forms hide this field from people (CSS, `tabindex="-1"`, ' +
      '`autocomplete="off"`); bots fill it in. When it is not empty the answer is the same 201, ' +
      'but nothing is stored and no mail is sent.',
  })
  @OptionalNotNull()
  @IsString()
  @MaxLength(CONTACT_LIMITS.honeypot)
  website?: string;
}

/** What an operator may change: the workflow fields, and the sender's details they correct. */
export class UpdateContactDto extends PartialType(PickType(CreateContactDto, ['name', 'email'] as const), {
  skipNullProperties: false,
}) {
  @ApiPropertyOptional({ enum: CONTACT_STATUSES, description: 'Any status may follow any other' })
  @OptionalNotNull()
  @IsIn(CONTACT_STATUSES)
  status?: ContactStatus;

  @ApiPropertyOptional({
    type: [String],
    maxItems: CONTACT_LIMITS.tags,
    example: ['sales', 'canada'],
    description: 'Replaces the tags',
  })
  @OptionalNotNull()
  @IsWordSet(CONTACT_LIMITS.tags, CONTACT_LIMITS.tag)
  tags?: string[];

  @ApiPropertyOptional({ ...METADATA_DOC, description: `${METADATA_DOC.description}; replaces the metadata` })
  @OptionalNotNull()
  @IsBoundedJsonObject(METADATA_LIMITS)
  metadata?: Record<string, unknown>;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: '+1 555 0100',
    maxLength: CONTACT_LIMITS.phone,
    description: 'null clears it',
  })
  @IsOptional()
  @IsHeaderText(CONTACT_LIMITS.phone)
  phone?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, example: 'Navy', maxLength: CONTACT_LIMITS.company })
  @IsOptional()
  @IsHeaderText(CONTACT_LIMITS.company)
  company?: string | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'Shipping to Canada',
    maxLength: CONTACT_LIMITS.subject,
  })
  @IsOptional()
  @IsHeaderText(CONTACT_LIMITS.subject)
  subject?: string | null;
}

export class ContactQueryDto extends CursorQueryDto {
  @ApiPropertyOptional({ enum: CONTACT_STATUSES })
  @IsOptional()
  @IsIn(CONTACT_STATUSES)
  status?: ContactStatus;

  @ApiPropertyOptional({ example: 'grace@example.com', description: "The sender's address, exactly (any case)" })
  @IsOptional()
  @Transform(lowerCase)
  @IsMailAddress()
  email?: string;

  @ApiPropertyOptional({ example: 'sales', maxLength: CONTACT_LIMITS.tag, description: 'Contacts with this tag' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(CONTACT_LIMITS.tag)
  tag?: string;

  @ApiPropertyOptional({
    example: 'canada shipping',
    maxLength: 200,
    description: 'Words of the name, subject and message (web search syntax)',
  })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  q?: string;

  @ApiPropertyOptional({ description: 'Received at or after this date-time (RFC 3339)' })
  @IsOptional()
  @IsTimestamp()
  from?: Date;

  @ApiPropertyOptional({ description: 'Received before this date-time (RFC 3339), exclusive' })
  @IsOptional()
  @IsTimestamp()
  to?: Date;
}

/**
 * What the sender learns: that the message arrived, and when. No id, no status and no URL: an
 * anonymous caller can read none of them, ids would show how busy the installation is, and a
 * honeypot hit must read the same.
 */
export class ContactReceiptDto {
  @ApiProperty({ type: Boolean, enum: [true], example: true }) received: true;
  @ApiProperty({ ...DATE_TIME, example: '2026-11-24T10:00:00.000Z' }) receivedAt: string;
}

export function toContactReceipt(receivedAt: Date): ContactReceiptDto {
  return { received: true, receivedAt: receivedAt.toISOString() };
}

/** What an operator sees (a key). */
export class ContactResponseDto {
  @ApiProperty({ ...ID, example: 1 }) id: number;
  @ApiProperty({ example: 'Grace Hopper' }) name: string;
  @ApiProperty({ example: 'grace@example.com' }) email: string;
  @ApiProperty({ type: String, nullable: true, example: null }) phone: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'Navy' }) company: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'Shipping to Canada' }) subject: string | null;
  @ApiProperty({ example: 'Hello! Do you ship to Canada?' }) message: string;
  @ApiProperty({ example: 'contact-form' }) source: string;
  @ApiProperty({ enum: CONTACT_STATUSES, example: 'new' }) status: ContactStatus;
  @ApiProperty({ type: [String], example: ['sales'] }) tags: string[];
  @ApiProperty({ type: 'object', additionalProperties: true, example: { page: '/pricing' } })
  metadata: Record<string, unknown>;
  @ApiProperty({
    type: String,
    nullable: true,
    example: '203.0.113.7',
    description: 'The address the message came from, as the server saw it (TRUST_PROXY)',
  })
  clientIp: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'Mozilla/5.0 (X11; Linux x86_64)' })
  userAgent: string | null;
  @ApiProperty({ ...DATE_TIME, example: '2026-11-24T10:00:00.000Z' }) createdAt: string;
  @ApiProperty({ ...DATE_TIME, example: '2026-11-24T10:00:00.000Z' }) updatedAt: string;
}

export function toContactResponse(c: ContactEntity): ContactResponseDto {
  return {
    id: c.id,
    name: c.name,
    email: c.email,
    phone: c.phone,
    company: c.company,
    subject: c.subject,
    message: c.message,
    source: c.source,
    status: c.status,
    tags: c.tags,
    metadata: c.metadata,
    clientIp: c.clientIp,
    userAgent: c.userAgent,
    createdAt: c.createdAt.toISOString(),
    updatedAt: c.updatedAt.toISOString(),
  };
}
