import { Body, Get, Param, Patch, Query } from '@nestjs/common';
import { CurrentSite } from '../common/auth/decorators';
import { SiteIdParamDto } from '../common/http/params';
import { ApiController, Route } from '../common/http/route.decorator';
import { mapPage, Page, PageDto } from '../common/pagination/page';
import { SiteContext } from '../common/tenancy/site-context';
import { ProfileResponseDto, toProfileEntry } from './dto/profile.dto';
import { toUserResponse, UpdateUserDto, UserQueryDto, UserResponseDto } from './dto/user.dto';
import { ProfileService } from './profile.service';
import { UsersService } from './users.service';

/** Operators' routes over a site's users (a secret key; a session is a 403). */
@ApiController('api/v2/sites/:siteName/users', 'Site users')
export class UsersController {
  constructor(
    private readonly users: UsersService,
    private readonly profile: ProfileService,
  ) {}

  @Get()
  @Route({
    auth: 'key',
    summary: 'List site users',
    description: 'Newest first, keyset-paginated; filters: status, part of the address, created range.',
    ok: PageDto(UserResponseDto),
    problems: [400, 403],
  })
  async list(@CurrentSite() site: SiteContext, @Query() query: UserQueryDto): Promise<Page<UserResponseDto>> {
    return mapPage(await this.users.list(site, query), toUserResponse);
  }

  @Get(':id')
  @Route({ auth: 'key', summary: 'Get a site user', ok: UserResponseDto, problems: [403] })
  async get(@CurrentSite() site: SiteContext, @Param() { id }: SiteIdParamDto): Promise<UserResponseDto> {
    return toUserResponse(await this.users.get(site, id));
  }

  @Patch(':id')
  @Route({
    auth: 'key',
    summary: 'Update a site user',
    description:
      'Name, metadata, a corrected address, or the status: disabling ends every session of the user at once.',
    ok: UserResponseDto,
    problems: [400, 403, 409],
  })
  async update(
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
    operationId: 'getUserProfile',
    ok: ProfileResponseDto,
    problems: [403],
  })
  async profileOf(@CurrentSite() site: SiteContext, @Param() { id }: SiteIdParamDto): Promise<ProfileResponseDto> {
    return { entries: (await this.profile.entries(site, id)).map(toProfileEntry) };
  }
}
