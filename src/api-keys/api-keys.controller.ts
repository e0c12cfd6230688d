import { Body, Delete, Get, Param, Post, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { CurrentKey } from '../common/auth/decorators';
import { KeyPrincipal } from '../common/auth/principal';
import { publishableReads } from '../common/auth/permissions';
import { IdParamDto } from '../common/http/params';
import { CursorQueryDto, mapPage, Page, PageDto } from '../common/pagination/page';
import { ApiKeysService } from './api-keys.service';
import {
  ApiKeyResponseDto,
  CreateApiKeyDto,
  CreatedApiKeyResponseDto,
  DEFAULT_ROLL_GRACE_SECONDS,
  RollApiKeyDto,
  toApiKeyResponse,
  toCreatedApiKeyResponse,
} from './dto/api-key.dto';
import { created } from '../common/http/public-urls';
import { ApiController, Route } from '../common/http/route.decorator';

@ApiController('api/v2/api-keys', { tag: 'API keys', permissions: 'api-keys' })
export class ApiKeysController {
  constructor(private readonly keys: ApiKeysService) {}

  @Get()
  @Route({
    auth: 'account-key',
    summary: 'List API keys',
    description: 'Active keys of the account, newest first. The keys themselves are never shown again.',
    ok: PageDto(ApiKeyResponseDto),
  })
  async listApiKeys(@CurrentKey() key: KeyPrincipal, @Query() query: CursorQueryDto): Promise<Page<ApiKeyResponseDto>> {
    return mapPage(await this.keys.list(key, query), (k) => toApiKeyResponse(k));
  }

  @Post()
  @Route({
    auth: 'account-key',
    summary: 'Create an API key (admin)',
    description:
      'The plaintext key is in this response only. `kind: publishable` makes a key for browsers and apps ' +
      `(\`sb_pub_…\`): it reads what is published and media (${publishableReads()}) and calls the public routes, ` +
      'from its `allowedOrigins` when set, within its own per-minute limit.',
    idempotent: true,
    created: CreatedApiKeyResponseDto,
    bodyExample: { name: 'CI deploys', permissions: ['content:read', 'media:read'] },
    admin: true,
  })
  async createApiKey(
    @CurrentKey() key: KeyPrincipal,
    @Body() dto: CreateApiKeyDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<CreatedApiKeyResponseDto> {
    const made = await this.keys.create(key, dto);
    created(res, `/api/v2/api-keys/${made.entity.id}`);
    return toCreatedApiKeyResponse(made);
  }

  @Get(':id')
  @Route({ auth: 'account-key', summary: 'Get an API key by id', ok: ApiKeyResponseDto })
  async getApiKey(@CurrentKey() key: KeyPrincipal, @Param() { id }: IdParamDto): Promise<ApiKeyResponseDto> {
    return toApiKeyResponse(await this.keys.get(key, id));
  }

  @Delete(':id')
  @Route({
    auth: 'account-key',
    summary: 'Revoke an API key by id',
    description: 'The key stops working at once.',
    noContent: true,
    // Key 1 is the one you are using (and the account's last unrestricted one: 409); 2 is the create example's.
    params: [{ name: 'id', schema: { type: 'integer', minimum: 1, example: 2 } }],
    problems: [409],
  })
  async deleteApiKey(@CurrentKey() key: KeyPrincipal, @Param() { id }: IdParamDto): Promise<void> {
    await this.keys.revoke(key, id);
  }

  @Post(':id/roll')
  @Route({
    auth: 'account-key',
    summary: 'Roll an API key by id (admin)',
    description:
      'Gives the key a new secret, shown in this response only; its id, name, sites, permissions and expiry stay. ' +
      'The secret it replaces keeps working for `gracePeriodSeconds` (default 1 day, at most 7; 0: it stops at once), ' +
      "so the new one can be deployed first; the key's `previousSecret` shows until when, and its last use. Only one " +
      'previous secret is kept: rolling again ends the one before at once. Rolling the key you are using is allowed; ' +
      'a key cannot roll a key that may do more than itself, nor one that outlives it (403). During the grace the ' +
      'replaced secret still does what the key may do, except manage keys and the account (403 `secret_replaced`): ' +
      'a leaked secret is revoked (or rolled with `gracePeriodSeconds: 0`), not rolled with a grace.',
    ok: CreatedApiKeyResponseDto,
    body: { optional: RollApiKeyDto },
    idempotent: true,
    params: [{ name: 'id', schema: { type: 'integer', minimum: 1, example: 1 } }],
    admin: true,
  })
  async rollApiKey(
    @CurrentKey() key: KeyPrincipal,
    @Param() { id }: IdParamDto,
    // Declared as the class (not `| undefined`), or the validation pipe would not see it; absent is `{}` or undefined.
    @Body() dto: RollApiKeyDto,
  ): Promise<CreatedApiKeyResponseDto> {
    return toCreatedApiKeyResponse(
      await this.keys.roll(key, id, dto?.gracePeriodSeconds ?? DEFAULT_ROLL_GRACE_SECONDS),
    );
  }
}
