import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { AccountAdmin, AdminRoute, ApiKeyAuth, CurrentKey } from '../common/auth/decorators';
import { KeyPrincipal } from '../common/auth/principal';
import { ApiProblems } from '../common/errors/api-problems.decorator';
import { IdParamDto } from '../common/http/params';
import { Idempotent } from '../common/idempotency/idempotent.decorator';
import { CursorQueryDto, mapPage, Page, PageDto } from '../common/pagination/page';
import { ApiKeysService } from './api-keys.service';
import {
  ApiKeyResponseDto,
  CreateApiKeyDto,
  CreatedApiKeyResponseDto,
  toApiKeyResponse,
  toCreatedApiKeyResponse,
} from './dto/api-key.dto';
import { created } from '../common/http/public-urls';

@ApiTags('API keys')
@ApiKeyAuth()
@AccountAdmin()
@Controller('api/v2/api-keys')
export class ApiKeysController {
  constructor(private readonly keys: ApiKeysService) {}

  @Get()
  @ApiOperation({
    summary: 'List API keys',
    description: 'Active keys of the account, newest first. The keys themselves are never shown again.',
  })
  @ApiOkResponse({ type: PageDto(ApiKeyResponseDto) })
  @ApiProblems(400, 401, 403)
  async list(@CurrentKey() key: KeyPrincipal, @Query() query: CursorQueryDto): Promise<Page<ApiKeyResponseDto>> {
    return mapPage(await this.keys.list(key, query), toApiKeyResponse);
  }

  @Post()
  @AdminRoute()
  @Idempotent()
  @ApiOperation({ summary: 'Create an API key (admin)', description: 'The plaintext key is in this response only.' })
  @ApiCreatedResponse({ type: CreatedApiKeyResponseDto })
  @ApiProblems(400, 401, 403, 409)
  async create(
    @CurrentKey() key: KeyPrincipal,
    @Body() dto: CreateApiKeyDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<CreatedApiKeyResponseDto> {
    const made = await this.keys.create(key, dto);
    created(res, `/api/v2/api-keys/${made.entity.id}`);
    return toCreatedApiKeyResponse(made);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get an API key by id' })
  @ApiOkResponse({ type: ApiKeyResponseDto })
  @ApiProblems(400, 401, 403, 404)
  async get(@CurrentKey() key: KeyPrincipal, @Param() { id }: IdParamDto): Promise<ApiKeyResponseDto> {
    return toApiKeyResponse(await this.keys.get(key, id));
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Revoke an API key by id', description: 'The key stops working at once.' })
  @ApiNoContentResponse()
  @ApiProblems(400, 401, 403, 404, 409)
  async remove(@CurrentKey() key: KeyPrincipal, @Param() { id }: IdParamDto): Promise<void> {
    await this.keys.revoke(key, id);
  }
}
