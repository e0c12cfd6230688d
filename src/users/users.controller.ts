import { Body, Get, Param, Patch, Post, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { CurrentSite } from '../common/auth/decorators';
import { SiteIdParamDto } from '../common/http/params';
import { ApiController, Route } from '../common/http/route.decorator';
import { mapPage, Page, PageDto } from '../common/pagination/page';
import { SiteContext } from '../common/tenancy/site-context';
import { created } from '../common/http/public-urls';
import { CreditsService } from './credits/credits.service';
import {
  CreditBalanceDto,
  CreditChangeDto,
  CreditEntryDto,
  CreditLedgerQueryDto,
  GrantCreditsDto,
  SpendCreditsDto,
  toCreditEntry,
} from './dto/credits.dto';
import { ProfileResponseDto, toProfileEntry } from './dto/profile.dto';
import { toUserResponse, UpdateUserDto, UserQueryDto, UserResponseDto } from './dto/user.dto';
import { ProfileService } from './me/profile.service';
import { UsersService } from './users.service';

/** Operators' routes over a site's users (a secret key; a session is a 403). */
@ApiController('api/v2/sites/:siteName/users', { tag: 'Site users', permissions: 'users' })
export class UsersController {
  constructor(
    private readonly users: UsersService,
    private readonly profile: ProfileService,
    private readonly credits: CreditsService,
  ) {}

  @Get()
  @Route({
    auth: 'key',
    summary: 'List site users',
    description: 'Newest first, keyset-paginated; filters: status, part of the address, created range.',
    ok: PageDto(UserResponseDto),
  })
  async listUsers(@CurrentSite() site: SiteContext, @Query() query: UserQueryDto): Promise<Page<UserResponseDto>> {
    return mapPage(await this.users.list(site, query), toUserResponse);
  }

  @Get(':id')
  @Route({ auth: 'key', summary: 'Get a site user', ok: UserResponseDto })
  async getUser(@CurrentSite() site: SiteContext, @Param() { id }: SiteIdParamDto): Promise<UserResponseDto> {
    return toUserResponse(await this.users.get(site, id));
  }

  @Patch(':id')
  @Route({
    auth: 'key',
    summary: 'Update a site user',
    description:
      'Name, metadata, a corrected address, or the status: disabling ends every session of the user at once.',
    ok: UserResponseDto,
    problems: [409],
  })
  async updateUser(
    @CurrentSite() site: SiteContext,
    @Param() { id }: SiteIdParamDto,
    @Body() dto: UpdateUserDto,
  ): Promise<UserResponseDto> {
    return toUserResponse(await this.users.update(site, id, dto));
  }

  @Get(':id/profile')
  @Route({
    auth: 'key',
    summary: 'Get a site user’s profile',
    ok: ProfileResponseDto,
  })
  async getUserProfile(@CurrentSite() site: SiteContext, @Param() { id }: SiteIdParamDto): Promise<ProfileResponseDto> {
    return { entries: (await this.profile.entries(site, id)).map(toProfileEntry) };
  }

  @Get(':id/credits/balance')
  @Route({
    auth: 'key',
    summary: 'Get a site user’s credit balance',
    ok: CreditBalanceDto,
  })
  async getUserCreditBalance(
    @CurrentSite() site: SiteContext,
    @Param() { id }: SiteIdParamDto,
  ): Promise<CreditBalanceDto> {
    return { balance: await this.credits.balance(site, id) };
  }

  @Post(':id/credits/grant')
  @Route({
    auth: 'key',
    summary: 'Grant credits to a site user',
    description:
      'Adds a ledger line; with `expiresAt`, what is left of the grant stops counting then. Idempotency-Key replays.',
    created: CreditChangeDto,
    idempotent: true,
  })
  async grantUserCredits(
    @CurrentSite() site: SiteContext,
    @Param() { id }: SiteIdParamDto,
    @Body() dto: GrantCreditsDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<CreditChangeDto> {
    const { entry, balance } = await this.credits.grant(site, id, dto);
    created(res, `/api/v2/sites/${site.name}/users/${id}/credits`);
    return { entry: toCreditEntry(entry), balance };
  }

  @Post(':id/credits/spend')
  @Route({
    auth: 'key',
    summary: 'Spend credits of a site user (admin)',
    description:
      'Takes from the soonest-expiring grants first; a short balance is a 409 and takes nothing. Idempotency-Key replays.',
    created: CreditChangeDto,
    idempotent: true,
    admin: true,
  })
  async spendUserCredits(
    @CurrentSite() site: SiteContext,
    @Param() { id }: SiteIdParamDto,
    @Body() dto: SpendCreditsDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<CreditChangeDto> {
    const { entry, balance } = await this.credits.spend(site, id, dto);
    created(res, `/api/v2/sites/${site.name}/users/${id}/credits`);
    return { entry: toCreditEntry(entry), balance };
  }

  @Get(':id/credits')
  @Route({
    auth: 'key',
    summary: 'List a site user’s credit ledger (admin)',
    description: 'Newest first, keyset-paginated.',
    ok: PageDto(CreditEntryDto),
    admin: true,
  })
  async listUserCredits(
    @CurrentSite() site: SiteContext,
    @Param() { id }: SiteIdParamDto,
    @Query() query: CreditLedgerQueryDto,
  ): Promise<Page<CreditEntryDto>> {
    return mapPage(await this.credits.ledgerOf(site, id, query), toCreditEntry);
  }
}
