import { Body, Headers, Ip, Post } from '@nestjs/common';
import { CurrentSite } from '../../common/auth/decorators';
import { ApiController, Route } from '../../common/http/route.decorator';
import { SiteContext } from '../../common/tenancy/site-context';
import { UsersConfig } from '../users.config';
import { OtpRequestedDto, RequestOtpDto, SessionResponseDto, VerifyOtpDto } from '../dto/otp.dto';
import { toUserResponse } from '../dto/user.dto';
import { OtpService } from './otp.service';

/** Sign-in by one-time password: public routes of the site. */
@ApiController('api/v2/sites/:siteName/users', { tag: 'Site users', permissions: 'none' })
export class UsersAuthController {
  constructor(
    private readonly otp: OtpService,
    private readonly config: UsersConfig,
  ) {}

  @Post('request-otp')
  @Route({
    auth: 'public',
    summary: 'Request a one-time password',
    publishable: true,
    description:
      'Mails a 6-digit code to the address (the first verified code creates the user). The answer is the same ' +
      'whether or not the address has an account, and when no new code was sent (one was sent less than a ' +
      'minute ago, or the address had its hourly share). Rate limited per client IP.',
    accepted: OtpRequestedDto,
  })
  async requestOtpUsersAuth(
    @CurrentSite() site: SiteContext,
    @Body() dto: RequestOtpDto,
    @Ip() ip: string,
    @Headers('user-agent') userAgent: string | undefined,
  ): Promise<OtpRequestedDto> {
    await this.otp.request(site, dto.email, { ip, userAgent });
    return {
      message: 'If the address can sign in, a code is on its way.',
      expiresInSeconds: this.config.USER_OTP_TTL_SECONDS,
    };
  }

  @Post('verify-otp')
  @Route({
    auth: 'public',
    exampleAnswers: { status: 401, because: 'the code is the one `request-otp` mailed; no example can know it' },
    summary: 'Verify a one-time password',
    publishable: true,
    description:
      'Signs in with the mailed code and answers a session token (send it as `Authorization: Bearer`). A wrong, ' +
      'expired or used code is a 401 and counts an attempt; after 5 attempts even the right code fails.',
    ok: SessionResponseDto,
  })
  async verifyOtpUsersAuth(
    @CurrentSite() site: SiteContext,
    @Body() dto: VerifyOtpDto,
    @Ip() ip: string,
    @Headers('user-agent') userAgent: string | undefined,
  ): Promise<SessionResponseDto> {
    const { token, session, user } = await this.otp.verify(site, dto.email, dto.code, { ip, userAgent });
    return { accessToken: token, expiresAt: session.expiresAt.toISOString(), user: toUserResponse(user) };
  }
}
