import { KeyPrincipal } from '../common/auth/principal';
import { ForbiddenProblem, ValidationProblem } from '../common/errors/problems';
import { normalizePermissions, notGranted, Permission } from '../common/auth/permissions';
import { CreateApiKeyDto } from './dto/api-key.dto';
import { ApiKeyEntity, ApiKeyKind } from './entities/api-key.entity';

/*
 * What a key may make or act on (docs/foundation.md, "Permissions" and "Rolling"): no key that
 * may do more than itself, none that outlives it, and the fields of each kind. The service
 * calls these before it writes; `by` undefined is the operator (src/cli), who may do anything.
 */

/**
 * A key never acts on a key that may do more than itself (a limited key holding
 * `api-keys:write` would otherwise take the account's stronger keys away, or take them over by
 * rolling them). `by` undefined: the operator.
 */
export function assertNoMoreThan(by: readonly string[] | null | undefined, target: ApiKeyEntity, action: string): void {
  const beyond =
    by === undefined ? [] : notGranted(by, normalizePermissions(target.permissions as Permission[] | null));
  if (beyond.length)
    throw new ForbiddenProblem(
      'insufficient_permission',
      `A key cannot ${action} a key that may do more than itself: this key lacks ${beyond.map((p) => `\`${p}\``).join(', ')}`,
    );
}

/** When a key stops working, as problems say it: its ISO time, or never. */
const whenEnds = (at: number | null): string => (at === null ? 'never' : new Date(at).toISOString());

/**
 * A key never makes a key that outlives itself (an expiring key with `api-keys:write` would
 * otherwise escape its expiry): when `by` expires, the new key's `expiresAt` is required and no
 * later than `by`'s. A 400 naming the field, as @Checked declares on the DTO.
 */
export function assertNoLongerLived(by: KeyPrincipal, expiresAt: Date | null): void {
  if (by.expiresAt === null) return;
  const limit = whenEnds(by.expiresAt);
  if (expiresAt === null)
    throw new ValidationProblem([
      {
        path: 'expiresAt',
        message: `is required: this key expires at ${limit}, and a key cannot make one that outlives it`,
      },
    ]);
  if (expiresAt.getTime() > by.expiresAt)
    throw new ValidationProblem([
      {
        path: 'expiresAt',
        message: `must be no later than ${limit}, when this key expires: a key cannot make one that outlives it`,
      },
    ]);
}

/**
 * A key never rolls a key that outlives it: it would hold that key's new secret past its own
 * expiry. (Rolling itself is fine: a roll keeps the key's expiry.)
 */
export function assertOutlivesNot(by: Pick<KeyPrincipal, 'expiresAt'>, target: ApiKeyEntity): void {
  if (by.expiresAt === null) return;
  const targetEnds = target.expiresAt?.getTime() ?? null;
  if (targetEnds !== null && targetEnds <= by.expiresAt) return;
  throw new ForbiddenProblem(
    'longer_lived_key',
    `A key cannot roll a key that outlives it: this key expires at ${whenEnds(by.expiresAt)}, that one ${
      targetEnds === null ? 'never does' : `at ${whenEnds(targetEnds)}`
    }`,
  );
}

/**
 * What only one kind of key takes: a publishable key's permissions are fixed, and origins and a
 * per-key limit mean nothing on a secret key (a 400 naming the field, as @Checked declares).
 */
export function assertKindFields(kind: ApiKeyKind, dto: CreateApiKeyDto): void {
  const wrong: { path: string; message: string }[] = [];
  if (kind === 'publishable') {
    if (dto.permissions != null)
      wrong.push({
        path: 'permissions',
        message: 'is fixed for a publishable key (the published reads): leave it out',
      });
  } else {
    if (dto.allowedOrigins != null) wrong.push({ path: 'allowedOrigins', message: 'is only for a publishable key' });
    if (dto.rateLimitPerMinute != null)
      wrong.push({ path: 'rateLimitPerMinute', message: 'is only for a publishable key' });
  }
  if (wrong.length) throw new ValidationProblem(wrong);
}
