import { Body, Delete, Get, Param, Post, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { CurrentKey } from '../common/auth/decorators';
import { KeyPrincipal } from '../common/auth/principal';
import { IdParamDto } from '../common/http/params';
import { created } from '../common/http/public-urls';
import { ApiController, Route } from '../common/http/route.decorator';
import { CursorQueryDto, mapPage, Page, PageDto } from '../common/pagination/page';
import { CreateSenderDomainDto, SenderDomainResponseDto, toSenderDomainResponse } from './dto/sender-domain.dto';
import { SenderDomainsService } from './sender-domains.service';

/**
 * Admin routes outside the interface: the domains an account's sites may send From (docs/email.md).
 * Their permissions are email's: a sender domain exists only to send mail From it.
 */
@ApiController('api/v2/sender-domains', { tag: 'Admin: sender domains', permissions: 'email' })
export class SenderDomainsController {
  constructor(private readonly domains: SenderDomainsService) {}

  @Post()
  @Route({
    auth: 'account-key',
    summary: 'Add a sender domain (admin)',
    description:
      "Answers the two TXT records to publish: the verification challenge (this account's own) and the DKIM key. " +
      "Until the domain is verified, mail of the account's sites that names an address at it goes From MAIL_FROM.",
    created: SenderDomainResponseDto,
    cost: 'outbound',
    admin: true,
  })
  async createSenderDomain(
    @CurrentKey() key: KeyPrincipal,
    @Body() dto: CreateSenderDomainDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<SenderDomainResponseDto> {
    const domain = await this.domains.add(key, dto);
    created(res, `/api/v2/sender-domains/${domain.id}`);
    return toSenderDomainResponse(domain);
  }

  @Get()
  @Route({
    auth: 'account-key',
    summary: 'List sender domains (admin)',
    description: 'The sender domains of the account, newest first.',
    ok: PageDto(SenderDomainResponseDto),
    admin: true,
  })
  async listSenderDomains(
    @CurrentKey() key: KeyPrincipal,
    @Query() query: CursorQueryDto,
  ): Promise<Page<SenderDomainResponseDto>> {
    return mapPage(await this.domains.list(key, query), toSenderDomainResponse);
  }

  @Get(':id')
  @Route({
    auth: 'account-key',
    summary: 'Get a sender domain (admin)',
    ok: SenderDomainResponseDto,
    admin: true,
  })
  async getSenderDomain(
    @CurrentKey() key: KeyPrincipal,
    @Param() { id }: IdParamDto,
  ): Promise<SenderDomainResponseDto> {
    return toSenderDomainResponse(await this.domains.get(key, id));
  }

  @Post(':id/verify')
  @Route({
    auth: 'account-key',
    exampleAnswers: {
      status: 422,
      because: 'the example domain publishes no records; publish them for your own domain first',
    },
    summary: 'Verify a sender domain (admin)',
    description:
      'Looks up both TXT records. 200 with the domain (verified) when both are published; 422 `dns_records_missing` ' +
      'naming each one not found; 503 when DNS does not answer in time.',
    ok: SenderDomainResponseDto,
    problems: [422, 503],
    cost: 'outbound',
    admin: true,
  })
  async verifySenderDomain(
    @CurrentKey() key: KeyPrincipal,
    @Param() { id }: IdParamDto,
  ): Promise<SenderDomainResponseDto> {
    return toSenderDomainResponse(await this.domains.verify(key, id));
  }

  @Delete(':id')
  @Route({
    auth: 'account-key',
    summary: 'Remove a sender domain (admin)',
    description: 'Its DKIM key is deleted; mail From it goes From MAIL_FROM again.',
    noContent: true,
    admin: true,
  })
  async deleteSenderDomain(@CurrentKey() key: KeyPrincipal, @Param() { id }: IdParamDto): Promise<void> {
    await this.domains.remove(key, id);
  }
}
