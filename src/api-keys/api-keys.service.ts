import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, IsNull, Repository } from 'typeorm';
import { SitesService } from '../account/sites.service';
import { KeyPrincipal } from '../common/auth/principal';
import { ConflictProblem, ForbiddenProblem, NotFoundProblem } from '../common/errors/problems';
import {
  ALL_PERMISSIONS,
  grants,
  normalizePermissions,
  notGranted,
  Permission,
  PUBLISHABLE_PERMISSIONS,
} from '../common/auth/permissions';
import { recordEvent } from '../common/outbox/record-event';
import { API_KEY_EVENTS } from './api-keys.events';
import { CursorQueryDto, Page } from '../common/pagination/page';
import { SiteContext } from '../common/tenancy/site-context';
import { ChangeNotifications } from '../database/change-notifications';
import { ApiKeysRepository } from './api-keys.repository';
import { describeApiKey, generateApiKey, generateApiKeyLike, hashApiKey } from './api-key-secret';
import { CreateApiKeyDto } from './dto/api-key.dto';
import { assertKindFields, assertNoLongerLived, assertNoMoreThan, assertOutlivesNot } from './api-key-rules';
import { ApiKeyEntity, ApiKeyKind } from './entities/api-key.entity';

export interface CreatedApiKey {
  entity: ApiKeyEntity;
  plaintext: string;
}

/** Keys' lifecycle: create, list, revoke, roll. Verifying a presented key is ApiKeyVerification's. */
@Injectable()
export class ApiKeysService {
  constructor(
    @InjectRepository(ApiKeyEntity) private readonly keys: Repository<ApiKeyEntity>,
    private readonly dataSource: DataSource,
    private readonly sites: SitesService,
    private readonly notifications: ChangeNotifications,
    private readonly repository: ApiKeysRepository,
  ) {}

  /**
   * A key never makes a key that may do more than itself (docs/foundation.md, "Permissions"):
   * without `permissions` the new key would hold every one, so a limited key must name them.
   * (Site restriction needs no such rule: only an unrestricted key may create keys.) Nor does
   * it make a key that outlives itself: a key that expires must give the new one an expiry no
   * later than its own.
   */
  create(key: KeyPrincipal, dto: CreateApiKeyDto): Promise<CreatedApiKey> {
    return this.createChecked(key.accountId, dto, key);
  }

  /**
   * The operator's command (`npm run key -- create`, src/cli/key.ts): a key in the account that
   * owns `site`, under the API's rules of kinds and fields; the operator may give anything (no
   * key of theirs to stay within).
   */
  createForSite(site: SiteContext, dto: CreateApiKeyDto): Promise<CreatedApiKey> {
    return this.createChecked(site.accountId, dto);
  }

  /** The rules of a new key; `by` undefined: the operator (api-key-rules.ts). */
  private createChecked(accountId: number, dto: CreateApiKeyDto, by?: KeyPrincipal): Promise<CreatedApiKey> {
    const kind = dto.kind ?? 'secret';
    assertKindFields(kind, dto);
    if (by) assertNoLongerLived(by, dto.expiresAt ?? null);
    const permissions = kind === 'publishable' ? [...PUBLISHABLE_PERMISSIONS] : normalizePermissions(dto.permissions);
    const beyond = by ? notGranted(by.permissions, permissions) : [];
    if (beyond.length)
      throw new ForbiddenProblem(
        'insufficient_permission',
        `A key cannot give more than it has: this key lacks ${beyond.map((p) => `\`${p}\``).join(', ')}`,
      );
    return this.dataSource.transaction(async (em) => {
      const siteIds = dto.siteIds ?? null;
      if (siteIds) await this.sites.assertOwned(accountId, siteIds);
      return this.createInAccount(em, accountId, {
        name: dto.name,
        kind,
        siteIds,
        permissions,
        allowedOrigins: dto.allowedOrigins ?? null,
        rateLimitPerMinute: dto.rateLimitPerMinute ?? null,
        expiresAt: dto.expiresAt ?? null,
      });
    });
  }

  /** Also used by the first-start bootstrap, which may bring its own plaintext. */
  async createInAccount(
    em: EntityManager,
    accountId: number,
    input: {
      name: string;
      kind?: ApiKeyKind;
      siteIds: number[] | null;
      permissions?: Permission[] | null;
      allowedOrigins?: string[] | null;
      rateLimitPerMinute?: number | null;
      expiresAt: Date | null;
      plaintext?: string;
    },
  ): Promise<CreatedApiKey> {
    const kind = input.kind ?? 'secret';
    const plaintext = input.plaintext ?? generateApiKey(kind);
    const entity = await em.save(
      em.create(ApiKeyEntity, {
        accountId,
        name: input.name,
        keyHash: hashApiKey(plaintext),
        ...describeApiKey(plaintext),
        kind,
        siteIds: input.siteIds,
        permissions: input.permissions ?? null,
        allowedOrigins: input.allowedOrigins ?? null,
        rateLimitPerMinute: input.rateLimitPerMinute ?? null,
        expiresAt: input.expiresAt,
        lastUsedAt: null,
        revokedAt: null,
      }),
    );
    await recordEvent(em, { accountId }, API_KEY_EVENTS.created, { id: entity.id, name: entity.name, kind });
    return { entity, plaintext };
  }

  /** Whether `plaintext` is a live key (the first start's check of BOOTSTRAP_API_KEY on a used database). */
  async isLive(plaintext: string): Promise<boolean> {
    return (await this.repository.findLive(hashApiKey(plaintext))) !== null;
  }

  /** Every live key of an account, oldest first (the operator's command lists them whole). */
  listInAccount(accountId: number): Promise<ApiKeyEntity[]> {
    return this.keys.find({ where: { accountId, revokedAt: IsNull() }, order: { id: 'ASC' } });
  }

  list(key: KeyPrincipal, query: CursorQueryDto): Promise<Page<ApiKeyEntity>> {
    return this.repository.listLive(key.accountId, query);
  }

  async get(key: KeyPrincipal, id: number): Promise<ApiKeyEntity> {
    const found = await this.keys.findOneBy({ id, accountId: key.accountId, revokedAt: IsNull() });
    if (!found) throw new NotFoundProblem('API key');
    return found;
  }

  /**
   * Revokes a key at once. The account's last unrestricted key cannot go, so an account
   * never locks itself out (create another first); a key never revokes one that may do more
   * than itself (a limited key holding `api-keys:write` would otherwise take the account's
   * stronger keys away).
   */
  revoke(key: KeyPrincipal, id: number): Promise<void> {
    return this.revokeInAccount(key.accountId, id, key.permissions);
  }

  /**
   * revoke() for the operator's command, which names the account through one of its sites
   * (`by` undefined: the operator may revoke any key).
   */
  async revokeInAccount(accountId: number, id: number, by?: readonly string[] | null): Promise<void> {
    await this.dataSource.transaction(async (em) => {
      // Serialises revocations within the account, so two at once cannot remove the last key.
      await this.repository.lockAccount(em, accountId);
      const target = await em.findOne(ApiKeyEntity, {
        where: { id, accountId, revokedAt: IsNull() },
        lock: { mode: 'pessimistic_write' },
      });
      if (!target) throw new NotFoundProblem('API key');
      assertNoMoreThan(by, target, 'revoke');
      if (target.siteIds === null && grants(target.permissions, ALL_PERMISSIONS)) {
        if ((await this.repository.otherUnrestrictedCount(em, accountId, id)) === 0)
          throw new ConflictProblem(
            'last_key',
            "This is the account's last unrestricted key; create another before revoking it",
          );
      }
      await em.update(ApiKeyEntity, { id }, { revokedAt: new Date() });
      await recordEvent(em, { accountId }, API_KEY_EVENTS.revoked, { id });
    });
    // Answered once every instance has been sent the change (docs/foundation.md).
    await this.notifications.changedEverywhere('sitebase_credentials');
  }

  /**
   * Rolls a key (docs/foundation.md, "Rolling"): a new secret for the same key, shown once; the
   * old one keeps working for `graceSeconds` (0: it stops at once), never past the key's own
   * expiry. Only one previous secret is kept: rolling again ends the one before at once. A key
   * never rolls one that may do more than itself, nor one that outlives it (it would hold that
   * key's new secret); rolling the key in use is allowed.
   */
  roll(key: KeyPrincipal, id: number, graceSeconds: number): Promise<CreatedApiKey> {
    return this.rollInAccount(key.accountId, id, graceSeconds, key);
  }

  /** roll() by account (`by` undefined: the operator, who may roll any key). */
  async rollInAccount(
    accountId: number,
    id: number,
    graceSeconds: number,
    by?: Pick<KeyPrincipal, 'permissions' | 'expiresAt'>,
  ): Promise<CreatedApiKey> {
    const rolled = await this.dataSource.transaction(async (em) => {
      const target = await em.findOne(ApiKeyEntity, {
        where: { id, accountId, revokedAt: IsNull() },
        lock: { mode: 'pessimistic_write' },
      });
      if (!target) throw new NotFoundProblem('API key');
      assertNoMoreThan(by?.permissions, target, 'roll');
      if (by) assertOutlivesNot(by, target);
      const plaintext = generateApiKeyLike(target.prefix);
      const previousExpiresAt = await this.repository.roll(em, id, {
        keyHash: hashApiKey(plaintext),
        ...describeApiKey(plaintext),
        graceSeconds,
      });
      await recordEvent(em, { accountId }, API_KEY_EVENTS.rolled, {
        id,
        previousExpiresAt: previousExpiresAt.toISOString(),
      });
      return { entity: await em.findOneByOrFail(ApiKeyEntity, { id }), plaintext };
    });
    // Answered once every instance has been sent the change (docs/foundation.md).
    await this.notifications.changedEverywhere('sitebase_credentials');
    return rolled;
  }
}
