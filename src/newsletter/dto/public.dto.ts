import { ID, ID_LIST } from '../../common/http/api-id';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayMinSize,
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { SiteNameParamDto } from '../../common/http/params';
import { fromForm, IsIdSet, OptionalNotNull, toBoolean, toInteger } from '../../common/input/dto-rules';
import { IsBoundedJsonObject } from '../../common/input/json-rules';
import { IsHeaderText, IsMailAddress } from '../../common/input/mail-rules';
import { MEMBERSHIP_STATUSES, type MembershipStatus } from '../entities/membership.entity';
import { ATTRIBUTE_LIMITS, ATTRIBUTES_DOC, NAME_MAX, normaliseEmail, REASON_MAX } from './subscription.dto';
import { Checked } from '../../common/input/checked';

/** The shape of a link token (link-tokens.ts); anything else is refused before a lookup. */
export const TOKEN_PATTERN = /^[cmr]\.[0-9]{1,16}\.[A-Za-z0-9_-]{16,64}(\.[0-9]{1,12})?\.[A-Za-z0-9_-]{22}$/;
const TOKEN_MESSAGE = 'is not a valid link token';

/** Forms send strings: `"true"` and `"false"` are booleans there. */

/** What a signup form sends (`POST …/newsletter/subscribe`, anyone). */
export class SubscribeDto {
  @ApiProperty({ example: 'ada@example.com', maxLength: 254, description: 'Stored trimmed and in lower case' })
  @Transform(normaliseEmail)
  @IsMailAddress()
  email: string;

  @ApiPropertyOptional({ example: 'Ada', maxLength: NAME_MAX })
  @OptionalNotNull()
  @IsHeaderText(NAME_MAX)
  name?: string;

  @ApiProperty({ ...ID_LIST, example: [1], description: 'Public lists of the site to join (1 to 20)' })
  @IsIdSet(20)
  @Checked('stored data', 'Each id names a public list of this site.')
  @ArrayMinSize(1)
  lists: number[];

  @ApiPropertyOptional({
    ...ATTRIBUTES_DOC,
    description: `${ATTRIBUTES_DOC.description}; on a known address, only attributes it does not have yet are added`,
  })
  @OptionalNotNull()
  @IsBoundedJsonObject(ATTRIBUTE_LIMITS)
  attributes?: Record<string, unknown>;

  @ApiPropertyOptional({
    example: 'Send me the weekly digest. Unsubscribe at any time.',
    maxLength: REASON_MAX,
    description: 'The words the form showed beside its button: kept as consent evidence',
  })
  @OptionalNotNull()
  @IsString()
  @MaxLength(REASON_MAX)
  consentText?: string;

  @ApiPropertyOptional({
    example: '',
    maxLength: 2000,
    description:
      'A honeypot: leave it out or empty (forms hide it from people). Filled in, the answer is the same and nothing happens',
  })
  @OptionalNotNull()
  @IsString()
  @MaxLength(2000)
  website?: string;
}

export class SubscribeReceiptDto {
  @ApiProperty({ type: Boolean, enum: [true], example: true }) accepted: true;
  @ApiProperty({
    example: true,
    description: 'Some of the lists need a confirmation: a mail with a link was sent (whatever the address)',
  })
  confirmationRequired: boolean;
}

/**
 * `POST …/newsletter/unsubscribe`, as JSON or as a form (the preferences page, and RFC 8058
 * one-click posts whose body is `List-Unsubscribe=One-Click` and whose token is in the URL).
 */
export class UnsubscribeDto {
  @ApiPropertyOptional({
    example: 'm.1.x6Qe2-p0P9w3dWw1cG9aQA.9w8Cw6o3Hq1x9D5rA0dQJg',
    description: 'From a mail link',
  })
  @OptionalNotNull()
  @Checked('other fields', 'Required, except with the site’s key and `email`.')
  @IsString()
  @MaxLength(200)
  @Matches(TOKEN_PATTERN, { message: TOKEN_MESSAGE })
  token?: string;

  @ApiPropertyOptional({
    example: 'ada@example.com',
    description: "With the token: must be its address. Without one (the site's key only): the address that leaves",
  })
  @OptionalNotNull()
  @Transform(normaliseEmail)
  @IsMailAddress()
  email?: string;

  @ApiPropertyOptional({ ...ID, example: 1, description: 'Leave this list only; absent: every list' })
  @OptionalNotNull()
  @Transform(fromForm(toInteger))
  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  listId?: number;

  @ApiPropertyOptional({ example: true, description: 'Leave every list (the default when `listId` is absent)' })
  @OptionalNotNull()
  @Transform(fromForm(toBoolean))
  @IsBoolean()
  all?: boolean;

  @ApiPropertyOptional({ example: 'Too many mails', maxLength: REASON_MAX })
  @OptionalNotNull()
  @IsString()
  @MaxLength(REASON_MAX)
  reason?: string;

  @ApiPropertyOptional({ enum: ['One-Click'], description: 'RFC 8058 one-click: leaves every list' })
  @OptionalNotNull()
  @IsIn(['One-Click'])
  'List-Unsubscribe'?: 'One-Click';
}

export class UnsubscribeQueryDto {
  @ApiPropertyOptional({ description: 'The token of a one-click link (`List-Unsubscribe` header)' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  @Matches(TOKEN_PATTERN, { message: TOKEN_MESSAGE })
  token?: string;
}

export class TokenParamDto extends SiteNameParamDto {
  @ApiProperty({ example: 'c.1.x6Qe2-p0P9w3dWw1cG9aQA.1795500000.9w8Cw6o3Hq1x9D5rA0dQJg', maxLength: 200 })
  @IsString()
  @MaxLength(200)
  @Matches(TOKEN_PATTERN, { message: TOKEN_MESSAGE })
  token: string;
}

/** `POST …/newsletter/confirm`: the re-consent page's button (a form), or an API client (JSON). */
export class ConfirmDto {
  @ApiProperty({
    example: 'r.1.x6Qe2-p0P9w3dWw1cG9aQA.1795500000.9w8Cw6o3Hq1x9D5rA0dQJg',
    maxLength: 200,
    description: 'The token of a confirmation link (`c.…`) or of a re-consent link (`r.…`)',
  })
  @IsString()
  @MaxLength(200)
  @Matches(TOKEN_PATTERN, { message: TOKEN_MESSAGE })
  token: string;
}

export class ListStatusDto {
  @ApiProperty({ ...ID, example: 1 }) listId: number;
  @ApiProperty({ example: 'Weekly digest' }) name: string;
  @ApiProperty({ enum: MEMBERSHIP_STATUSES, example: 'active' }) status: MembershipStatus;
}

/** What a confirm or an unsubscribe answers an API client: the lists of the address, as they now stand. */
export class LinkResultDto {
  @ApiProperty({
    enum: ['confirmed', 'confirmation_required', 'unsubscribed'],
    example: 'confirmed',
    description:
      '`confirmation_required`: a re-consent link (`r.…`) was opened, which changes nothing; POST its token to confirm',
  })
  result: 'confirmed' | 'confirmation_required' | 'unsubscribed';
  @ApiProperty({ type: [ListStatusDto] }) lists: ListStatusDto[];
}

export class PreferencesQueryDto {
  @ApiPropertyOptional({
    enum: ['left', 'left-all'],
    description: 'What the last form post did (a notice on the page)',
  })
  @IsOptional()
  @IsIn(['left', 'left-all'])
  done?: 'left' | 'left-all';
}
