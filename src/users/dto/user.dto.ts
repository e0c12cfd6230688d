import { ID } from '../../common/http/api-id';
import { DATE_TIME } from '../../common/http/api-date';
import { ApiPropertyOptional, PickType } from '@nestjs/swagger';
import { IsIn, IsNotEmpty, IsObject, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { FieldOwner } from '../../common/input/field-owner';
import { IsTimestamp, OptionalNotNull } from '../../common/input/dto-rules';
import { IsMailAddress } from '../../common/input/mail-rules';
import { CursorQueryDto } from '../../common/pagination/page';
import { SiteUserEntity, USER_STATUSES, type UserStatus } from '../entities/site-user.entity';

const METADATA_DOC = {
  type: 'object',
  additionalProperties: true,
  example: { plan: 'gold' },
  description: 'Free JSON of the site’s own (entitlements, plans…), at most 16 KB',
} as const;

export class UserQueryDto extends CursorQueryDto {
  @ApiPropertyOptional({ enum: USER_STATUSES })
  @IsOptional()
  @IsIn(USER_STATUSES)
  status?: UserStatus;

  @ApiPropertyOptional({ example: 'example.com', description: 'Part of the address (case-insensitive)' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(254)
  email?: string;

  @ApiPropertyOptional({ type: String, format: 'date-time', description: 'Created at or after' })
  @IsOptional()
  @IsTimestamp()
  from?: Date;

  @ApiPropertyOptional({ type: String, format: 'date-time', description: 'Created before' })
  @IsOptional()
  @IsTimestamp()
  to?: Date;
}

/** What an operator (a secret key) may change: any field not marked `server`. */
export class UpdateUserDto {
  @ApiPropertyOptional({ example: 'Ada Lovelace', maxLength: 200 })
  @OptionalNotNull()
  @IsString()
  @MaxLength(200)
  @Matches(/^[^\r\n]*$/, { message: 'must not contain line breaks' })
  name?: string;

  @ApiPropertyOptional(METADATA_DOC)
  @OptionalNotNull()
  @IsObject()
  metadata?: Record<string, unknown>;

  @ApiPropertyOptional({
    enum: USER_STATUSES,
    description: '`disabled`: the user cannot sign in, and every session of theirs ends at once',
  })
  @OptionalNotNull()
  @IsIn(USER_STATUSES)
  status?: UserStatus;

  @ApiPropertyOptional({ example: 'ada@example.com', description: 'A corrected address (unique in the site)' })
  @OptionalNotNull()
  @IsMailAddress()
  email?: string;
}

/**
 * What the user may change of themselves: only fields marked `user` on UserResponseDto (a test
 * holds it to that). A new `email` takes effect once its code is verified.
 */
export class UpdateMeDto extends PickType(UpdateUserDto, ['name'] as const) {
  @ApiPropertyOptional({
    example: 'ada@new.example',
    description: 'A new address: a code is mailed to it, and POST /users/me/verify-email with it makes the change',
  })
  @OptionalNotNull()
  @IsMailAddress()
  email?: string;
}

/** A site user; each field says who may change it (`@FieldOwner`, docs/users.md "The user"). */
export class UserResponseDto {
  @FieldOwner('server', { ...ID, example: 12 }) id: number;
  @FieldOwner('user', {
    example: 'ada@example.com',
    description: 'A user’s change takes effect once the code mailed to the new address is verified',
  })
  email: string;
  @FieldOwner('user', { example: 'Ada Lovelace' }) name: string;
  @FieldOwner('operator', { enum: USER_STATUSES, example: 'active' }) status: UserStatus;
  @FieldOwner('operator', METADATA_DOC) metadata: Record<string, unknown>;
  @FieldOwner('server', {
    ...DATE_TIME,
    nullable: true,
    example: '2026-01-01T00:00:00.000Z',
    description:
      'When a code first proved the current address; null until then (an address from an order, or corrected by an operator)',
  })
  emailVerifiedAt: string | null;
  @FieldOwner('server', { ...DATE_TIME, nullable: true, example: '2026-01-02T08:00:00.000Z' })
  lastSignInAt: string | null;
  @FieldOwner('server', { ...DATE_TIME, example: '2026-01-01T00:00:00.000Z' }) createdAt: string;
  @FieldOwner('server', { ...DATE_TIME, example: '2026-01-01T00:00:00.000Z' }) updatedAt: string;
}

/** PATCH /me answers the user, and the address waiting for its code when one was asked for. */
export class MeResponseDto extends UserResponseDto {
  @FieldOwner('server', {
    type: String,
    nullable: true,
    example: null,
    description: 'A new address mailed a code, not yet verified (PATCH /me only)',
  })
  pendingEmail: string | null;
}

const iso = (d: Date | null) => d?.toISOString() ?? null;

export function toUserResponse(u: SiteUserEntity): UserResponseDto {
  return {
    id: u.id,
    email: u.email,
    name: u.name,
    status: u.status,
    metadata: u.metadata,
    emailVerifiedAt: iso(u.emailVerifiedAt),
    lastSignInAt: iso(u.lastSignInAt),
    createdAt: u.createdAt.toISOString(),
    updatedAt: u.updatedAt.toISOString(),
  };
}

export function toMeResponse(u: SiteUserEntity, pendingEmail: string | null): MeResponseDto {
  return { ...toUserResponse(u), pendingEmail };
}
