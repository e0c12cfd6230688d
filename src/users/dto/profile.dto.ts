import { DATE_TIME } from '../../common/http/api-date';
import { ApiProperty, ApiPropertyOptions } from '@nestjs/swagger';
import { IsString, Matches, ValidateBy } from 'class-validator';
import { SiteNameParamDto } from '../../common/http/params';
import { UserProfileEntryEntity } from '../entities/user-profile-entry.entity';
import { declareSchemaRule } from '../../common/openapi/openapi-rules';

export const PROFILE_KEY_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/;

export class ProfileKeyParamDto extends SiteNameParamDto {
  @ApiProperty({ example: 'theme', pattern: PROFILE_KEY_PATTERN.source })
  @IsString()
  @Matches(PROFILE_KEY_PATTERN, { message: 'must be 1 to 64 letters, digits, _ . or -' })
  key: string;
}

/** Any JSON value, null included, as OpenAPI 3.0 can say it. */
const JSON_VALUE: ApiPropertyOptions = {
  anyOf: [
    { type: 'object', additionalProperties: true },
    { type: 'array', items: {} },
    { type: 'string', nullable: true },
    { type: 'number' },
    { type: 'boolean' },
  ],
};

// Required, and null is a value: what `required` without `nullable` already says of the schema's anyOf.
declareSchemaRule('isPresent', {});

export class PutProfileEntryDto {
  @ApiProperty({
    ...JSON_VALUE,
    example: { mode: 'dark' },
    description: 'Any JSON value (object, array, string, number, boolean or null), at most 16 KB',
  })
  @ValidateBy({
    name: 'isPresent',
    validator: { validate: (v: unknown) => v !== undefined, defaultMessage: () => 'is required (null is a value)' },
  })
  value: unknown;
}

export class ProfileEntryDto {
  @ApiProperty({ example: 'theme' }) key: string;
  @ApiProperty({ ...JSON_VALUE, example: { mode: 'dark' }, description: 'The JSON value' }) value: unknown;
  @ApiProperty({ ...DATE_TIME, example: '2026-01-01T00:00:00.000Z' }) updatedAt: string;
}

export class ProfileResponseDto {
  @ApiProperty({ type: [ProfileEntryDto], description: 'By key' }) entries: ProfileEntryDto[];
}

export function toProfileEntry(e: UserProfileEntryEntity): ProfileEntryDto {
  return { key: e.key, value: e.value, updatedAt: e.updatedAt.toISOString() };
}
