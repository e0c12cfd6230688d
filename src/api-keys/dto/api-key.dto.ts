import { DATE_TIME } from '../../common/http/api-date';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  MinDate,
  MinLength,
} from 'class-validator';
import { IsTimestamp, OptionalNotNull } from '../../common/input/dto-rules';
import { Permission, PERMISSIONS } from '../../common/auth/permissions';
import { ApiKeyEntity } from '../entities/api-key.entity';

export class CreateApiKeyDto {
  @ApiProperty({ example: 'CI deploys' })
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  name: string;

  @ApiPropertyOptional({
    type: [Number],
    nullable: true,
    example: [1],
    description: 'Restrict the key to these sites of the account (absent or null: all)',
  })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1, { message: 'must name at least one site (omit it for all sites)' })
  @ArrayMaxSize(100)
  @ArrayUnique()
  @IsInt({ each: true })
  @Min(1, { each: true })
  @Max(Number.MAX_SAFE_INTEGER, { each: true })
  siteIds?: number[];

  @ApiPropertyOptional({
    type: [String],
    enum: PERMISSIONS,
    nullable: true,
    example: ['content:read', 'media:read'],
    description:
      'What the key may do: `<group>:read` or `<group>:write` (write includes read), or `*` (absent or null: everything). ' +
      'A key cannot give a permission it lacks.',
  })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1, { message: 'must name at least one permission (omit it for all)' })
  @ArrayMaxSize(PERMISSIONS.length)
  @IsIn(PERMISSIONS, { each: true })
  permissions?: Permission[];

  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    nullable: true,
    example: '2027-01-01T00:00:00.000Z',
    description: 'The key stops working at this time (absent or null: never)',
  })
  @IsOptional()
  @IsTimestamp()
  @MinDate(() => new Date(), { message: 'must be in the future' })
  expiresAt?: Date;
}

/** The longest grace a rolled key's previous secret may have: 7 days. */
export const MAX_ROLL_GRACE_SECONDS = 604_800;
export const DEFAULT_ROLL_GRACE_SECONDS = 86_400;

export class RollApiKeyDto {
  @ApiPropertyOptional({
    type: 'integer',
    example: 3600,
    description:
      'How long the secret being replaced keeps working, in seconds (absent: 86400, one day; 0: it stops at once; ' +
      "at most 604800, 7 days; never past the key's own expiry)",
  })
  @OptionalNotNull()
  @IsInt()
  @Min(0)
  @Max(MAX_ROLL_GRACE_SECONDS)
  gracePeriodSeconds?: number;
}

/** The secret a roll replaced, while it still works. */
export class PreviousSecretResponseDto {
  @ApiProperty({ example: 'sb_live_Ab3d', description: 'First 12 characters of the secret' }) prefix: string;
  @ApiProperty({ example: 'x9Zq' }) last4: string;
  @ApiProperty({ ...DATE_TIME, description: 'When it stops working' }) expiresAt: string;
  @ApiProperty({ ...DATE_TIME, nullable: true, description: 'Its own last use (within a minute)' }) lastUsedAt:
    string | null;
}

export class ApiKeyResponseDto {
  @ApiProperty({ example: 1 }) id: number;
  @ApiProperty({ example: 'CI deploys' }) name: string;
  @ApiProperty({ example: 'sb_live_Ab3d', description: 'First 12 characters of the key' }) prefix: string;
  @ApiProperty({ example: 'x9Zq' }) last4: string;
  @ApiProperty({ type: [Number], nullable: true, description: 'null: every site of the account' }) siteIds:
    number[] | null;
  @ApiProperty({ type: [String], enum: PERMISSIONS, nullable: true, description: 'null: every permission' })
  permissions: Permission[] | null;
  @ApiProperty({ ...DATE_TIME, example: '2026-01-01T00:00:00.000Z' }) createdAt: string;
  @ApiProperty({ ...DATE_TIME, nullable: true, description: "The current secret's last use (within a minute)" })
  lastUsedAt: string | null;
  @ApiProperty({ ...DATE_TIME, nullable: true, description: 'The key stops working at this time (null: never)' })
  expiresAt: string | null;
  // `PreviousSecretResponseDto | null` written out: OpenAPI 3.0 has no nullable $ref.
  @ApiProperty({
    type: 'object',
    nullable: true,
    example: null,
    description:
      'The secret the last roll replaced, while it still works (null: none, or its grace is over). ' +
      'Its `lastUsedAt` shows whether anything still uses it.',
    properties: {
      prefix: { type: 'string', example: 'sb_live_Ab3d' },
      last4: { type: 'string', example: 'x9Zq' },
      expiresAt: { type: 'string', format: 'date-time', example: '2026-01-02T00:00:00.000Z' },
      lastUsedAt: { type: 'string', format: 'date-time', nullable: true, example: null },
    },
    required: ['prefix', 'last4', 'expiresAt', 'lastUsedAt'],
  })
  previousSecret: PreviousSecretResponseDto | null;
}

export class CreatedApiKeyResponseDto extends ApiKeyResponseDto {
  @ApiProperty({ example: 'sb_live_…', description: 'The key itself. Shown only in this response; store it now.' })
  key: string;
}

/** The previous secret while it still works. */
function previousSecret(k: ApiKeyEntity): PreviousSecretResponseDto | null {
  if (!k.previousExpiresAt || k.previousExpiresAt.getTime() <= Date.now()) return null;
  return {
    prefix: k.previousPrefix!,
    last4: k.previousLast4!,
    expiresAt: k.previousExpiresAt.toISOString(),
    lastUsedAt: k.previousLastUsedAt?.toISOString() ?? null,
  };
}

export function toApiKeyResponse(k: ApiKeyEntity): ApiKeyResponseDto {
  return {
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    last4: k.last4,
    siteIds: k.siteIds,
    permissions: k.permissions as Permission[] | null,
    createdAt: k.createdAt.toISOString(),
    lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
    expiresAt: k.expiresAt?.toISOString() ?? null,
    previousSecret: previousSecret(k),
  };
}

export function toCreatedApiKeyResponse({
  entity,
  plaintext,
}: {
  entity: ApiKeyEntity;
  plaintext: string;
}): CreatedApiKeyResponseDto {
  return { ...toApiKeyResponse(entity), key: plaintext };
}
