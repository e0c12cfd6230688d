import { Body, Delete, Get, Ip, Param, Patch, Post, Put, Query } from '@nestjs/common';
import { mapPage, Page, PageDto } from '../../common/pagination/page';
import { CreditsService } from '../credits/credits.service';
import {
  toUserDeletion,
  toUserDeletionPreview,
  UserDeletionPreviewDto,
  UserDeletionResponseDto,
} from '../dto/deletion.dto';
import { ErasureService } from './erasure.service';
import { CreditBalanceDto, CreditEntryDto, CreditLedgerQueryDto, toCreditEntry } from '../dto/credits.dto';
import { CurrentSite, CurrentUser } from '../../common/auth/decorators';
import { UserPrincipal } from '../../common/auth/principal';
import { ApiController, Route } from '../../common/http/route.decorator';
import { SiteContext } from '../../common/tenancy/site-context';
import { VerifyEmailDto } from '../dto/otp.dto';
import {
  ProfileEntryDto,
  ProfileKeyParamDto,
  ProfileResponseDto,
  PutProfileEntryDto,
  toProfileEntry,
} from '../dto/profile.dto';
import { MeResponseDto, toMeResponse, toUserResponse, UpdateMeDto, UserResponseDto } from '../dto/user.dto';
import { OtpService } from '../auth/otp.service';
import { ProfileService } from './profile.service';
import { UsersService } from '../users.service';

/**
 * The signed-in user's own routes (`/users/me/**`): a session only, of this site. Declared
 * before UsersController, so `me` is never read as an `{id}`.
 */
@ApiController('api/v2/sites/:siteName/users/me', { tag: 'Site users', permissions: 'none' })
export class MeController {
  constructor(
    private readonly users: UsersService,
    private readonly profile: ProfileService,
    private readonly otp: OtpService,
    private readonly credits: CreditsService,
    private readonly erasure: ErasureService,
  ) {}

  @Delete()
  @Route({
    auth: 'user',
    summary: 'Delete the current user',
    description:
      'Schedules the erasure of the user everywhere they appear (GET …/me/deletion-preview) after the grace period ' +
      '(0: at once), and ends every session now. Signing in again before it runs gives a session that may only ' +
      'read and cancel (DELETE …/me/deletion). Asking again answers the same request.',
    accepted: UserDeletionResponseDto,
    duringDeletion: true,
  })
  async deleteMe(
    @CurrentSite() site: SiteContext,
    @CurrentUser() user: UserPrincipal,
  ): Promise<UserDeletionResponseDto> {
    return toUserDeletion(await this.erasure.schedule(site, user));
  }

  @Get('deletion-preview')
  @Route({
    auth: 'user',
    summary: 'Preview the deletion of the current user',
    description:
      'What would be erased, what is kept anonymised (orders), canceled (subscriptions) and forfeited (credits).',
    ok: UserDeletionPreviewDto,
  })
  async getMyDeletionPreview(
    @CurrentSite() site: SiteContext,
    @CurrentUser() user: UserPrincipal,
  ): Promise<UserDeletionPreviewDto> {
    const { gracePeriodSeconds, impacts } = await this.erasure.preview(site, user);
    return toUserDeletionPreview(gracePeriodSeconds, impacts);
  }

  @Get('deletion')
  @Route({
    auth: 'user',
    summary: 'Get the deletion status of the current user',
    ok: UserDeletionResponseDto,
    exampleAnswers: {
      status: 404,
      because: 'on a fresh start no deletion is scheduled; DELETE …/users/me schedules one',
    },
  })
  async getMyDeletion(
    @CurrentSite() site: SiteContext,
    @CurrentUser() user: UserPrincipal,
  ): Promise<UserDeletionResponseDto> {
    return toUserDeletion(await this.erasure.latest(site, user));
  }

  @Delete('deletion')
  @Route({
    auth: 'user',
    summary: 'Cancel the scheduled deletion of the current user (admin)',
    description: 'Possible until the erasure starts (409 after).',
    ok: UserDeletionResponseDto,
    problems: [409],
    duringDeletion: true,
    admin: true,
  })
  async cancelMyDeletion(
    @CurrentSite() site: SiteContext,
    @CurrentUser() user: UserPrincipal,
  ): Promise<UserDeletionResponseDto> {
    return toUserDeletion(await this.erasure.cancel(site, user));
  }

  @Get('credits')
  @Route({
    auth: 'user',
    summary: 'List the current user’s credit ledger',
    description: 'Newest first, keyset-paginated: grants, spends, expiries and refunds.',
    ok: PageDto(CreditEntryDto),
  })
  async listMyCredits(
    @CurrentUser() user: UserPrincipal,
    @Query() query: CreditLedgerQueryDto,
  ): Promise<Page<CreditEntryDto>> {
    return mapPage(await this.credits.ledger(user.userId, query), toCreditEntry);
  }

  @Get('credits/balance')
  @Route({
    auth: 'user',
    summary: 'Get the current user’s credit balance',
    ok: CreditBalanceDto,
  })
  async getMyCreditBalance(
    @CurrentSite() site: SiteContext,
    @CurrentUser() user: UserPrincipal,
  ): Promise<CreditBalanceDto> {
    return { balance: await this.credits.balance(site, user.userId) };
  }

  @Get()
  @Route({ auth: 'user', summary: 'Get the current user', ok: UserResponseDto })
  async getMe(@CurrentUser() user: UserPrincipal): Promise<UserResponseDto> {
    return toUserResponse(await this.users.me(user));
  }

  @Patch()
  @Route({
    auth: 'user',
    summary: 'Update the current user',
    description:
      'The fields the user owns: the name changes at once; a new `email` is mailed a code and changes once ' +
      'POST …/me/verify-email confirms it (`pendingEmail` until then). A new address has the limits of sign-in ' +
      'codes: past its own the answer is the same and nothing is mailed; past the client IP’s or the user’s ' +
      'hourly share, 429 and nothing changes. `metadata` and `status` are the operators’ (400).',
    ok: MeResponseDto,
  })
  async updateMe(
    @CurrentSite() site: SiteContext,
    @CurrentUser() user: UserPrincipal,
    @Body() dto: UpdateMeDto,
    @Ip() ip: string,
  ): Promise<MeResponseDto> {
    const { user: updated, pendingEmail } = await this.users.updateMe(site, user, dto, { ip });
    return toMeResponse(updated, pendingEmail);
  }

  @Post('verify-email')
  @Route({
    auth: 'user',
    summary: 'Confirm a new address of the current user',
    description:
      'With the code mailed to the address given to PATCH …/me. A wrong, expired or used code is a 401 and counts ' +
      'an attempt; tries count against the client IP’s hourly share, like sign-in’s (429 past it).',
    ok: UserResponseDto,
    exampleAnswers: {
      status: 401,
      because: 'the code is the one PATCH …/me mailed to the new address; no example can know it',
    },
  })
  async verifyMyEmail(
    @CurrentSite() site: SiteContext,
    @CurrentUser() user: UserPrincipal,
    @Body() dto: VerifyEmailDto,
    @Ip() ip: string,
  ): Promise<UserResponseDto> {
    return toUserResponse(await this.otp.verifyEmailChange(site, user, dto.code, { ip }));
  }

  @Post('sign-out')
  @Route({
    auth: 'user',
    summary: 'Sign out (end this session)',
    description: 'The token stops working at once, on every instance.',
    noContent: true,
  })
  async signOut(@CurrentUser() user: UserPrincipal): Promise<void> {
    await this.users.signOut(user);
  }

  @Get('profile')
  @Route({
    auth: 'user',
    summary: 'Get the current user’s profile',
    ok: ProfileResponseDto,
  })
  async getMyProfile(
    @CurrentSite() site: SiteContext,
    @CurrentUser() user: UserPrincipal,
  ): Promise<ProfileResponseDto> {
    return { entries: (await this.profile.entries(site, user.userId)).map(toProfileEntry) };
  }

  @Put('profile/:key')
  @Route({
    auth: 'user',
    summary: 'Replace a profile entry',
    description: 'Keys are 1 to 64 of `A-Z a-z 0-9 _ . -`; a value is any JSON of at most 16 KB; at most 100 keys.',
    ok: ProfileEntryDto,
  })
  async putMyProfileEntry(
    @CurrentSite() site: SiteContext,
    @CurrentUser() user: UserPrincipal,
    @Param() { key }: ProfileKeyParamDto,
    @Body() dto: PutProfileEntryDto,
  ): Promise<ProfileEntryDto> {
    return toProfileEntry(await this.profile.put(site, user.userId, key, dto.value));
  }

  @Delete('profile/:key')
  @Route({ auth: 'user', summary: 'Delete a profile entry', noContent: true })
  async deleteMyProfileEntry(
    @CurrentSite() site: SiteContext,
    @CurrentUser() user: UserPrincipal,
    @Param() { key }: ProfileKeyParamDto,
  ): Promise<void> {
    await this.profile.remove(site, user.userId, key);
  }
}
