import { ID, ID_LIST } from '../../common/http/api-id';
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
  Matches,
  MaxLength,
  Min,
  MinDate,
  MinLength,
} from 'class-validator';
import { IsTimestamp, OptionalNotNull } from '../../common/input/dto-rules';
import { Permission, PERMISSIONS, publishableReads } from '../../common/auth/permissions';
import { Checked } from '../../common/input/checked';
import { ApiKeyEntity, ApiKeyKind } from '../entities/api-key.entity';

const API_KEY_KINDS: readonly ApiKeyKind[] = ['secret', 'publishable'];

/**
 * A browser origin as `Origin` carries it: scheme, host and port, lower case, no path. A label is
 * runs of letters and digits joined by hyphens, written so that each character has one way to
 * match (the `{0,61}` form backtracked polynomially on a crafted host: test/foundation/redos).
 */
const ORIGIN =
  /^https?:\/\/(?:[a-z0-9]+(?:-+[a-z0-9]+)*(?:\.[a-z0-9]+(?:-+[a-z0-9]+)*)*|\[[0-9a-f:.]+\])(?::[0-9]{1,5})?$/;

export class CreateApiKeyDto {
  @ApiProperty({ example: 'CI deploys' })
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  name: string;

  @ApiPropertyOptional({
    enum: API_KEY_KINDS,
    description:
      'Absent: `secret`. `secret` (`sb_live_…`, for servers) or `publishable` (`sb_pub_…`, safe in a browser or an app: it reads ' +
      `what is published and media (${publishableReads()}) and calls the public routes only)`,
  })
  @IsOptional()
  @IsIn(API_KEY_KINDS)
  kind?: ApiKeyKind;

  @ApiPropertyOptional({
    type: [String],
    nullable: true,
    example: ['https://www.example.com'],
    description:
      "A publishable key's browser origins (scheme, host and port, as `Origin` says them): a request from any " +
      'other origin, or with none, is a 403 `origin_not_allowed` (absent or null: any origin)',
  })
  @Checked('other fields', 'Only for a publishable key.')
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1, { message: 'must name at least one origin (omit it for any)' })
  @ArrayMaxSize(50)
  @ArrayUnique()
  @IsString({ each: true })
  @MaxLength(300, { each: true })
  @Matches(ORIGIN, {
    each: true,
    message: 'each must be an origin such as https://www.example.com (lower case, no path)',
  })
  allowedOrigins?: string[];

  @ApiPropertyOptional({
    type: Number,
    nullable: true,
    example: 6000,
    description:
      "A publishable key's requests a minute, every holder together (absent or null: the server's " +
      'PUBLISHABLE_KEY_RATE_PER_MINUTE); each caller is also limited by address',
  })
  @Checked('other fields', 'Only for a publishable key.')
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  rateLimitPerMinute?: number;

  @ApiPropertyOptional({
    ...ID_LIST,
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
      'A key cannot give a permission it lacks. A publishable key has fixed ones ' +
      `(${publishableReads()}): it takes none here.`,
  })
  @Checked('other fields', 'Not for a publishable key.')
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
  @Checked(
    'credential',
    "When the key creating it expires: required, and no later than that key's expiry (a key never outlives the key that made it).",
  )
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
  @ApiProperty({ ...ID, example: 1 }) id: number;
  @ApiProperty({ example: 'CI deploys' }) name: string;
  @ApiProperty({ enum: API_KEY_KINDS, example: 'secret' }) kind: ApiKeyKind;
  @ApiProperty({ example: 'sb_live_Ab3d', description: 'First 12 characters of the key' }) prefix: string;
  @ApiProperty({ example: 'x9Zq' }) last4: string;
  @ApiProperty({ ...ID_LIST, nullable: true, description: 'null: every site of the account' }) siteIds: number[] | null;
  @ApiProperty({ type: [String], enum: PERMISSIONS, nullable: true, description: 'null: every permission' })
  permissions: Permission[] | null;
  @ApiProperty({
    type: [String],
    nullable: true,
    description: "A publishable key's browser origins; null: any (and always null for a secret key)",
  })
  allowedOrigins: string[] | null;
  @ApiProperty({
    type: Number,
    nullable: true,
    example: null,
    description:
      "A publishable key's requests a minute, every holder together; null: the server's " +
      'PUBLISHABLE_KEY_RATE_PER_MINUTE (and always null for a secret key)',
  })
  rateLimitPerMinute: number | null;
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
  const publishable = k.kind === 'publishable';
  return {
    id: k.id,
    name: k.name,
    kind: k.kind,
    prefix: k.prefix,
    last4: k.last4,
    siteIds: k.siteIds,
    permissions: k.permissions as Permission[] | null,
    allowedOrigins: publishable ? k.allowedOrigins : null,
    rateLimitPerMinute: publishable ? k.rateLimitPerMinute : null,
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
