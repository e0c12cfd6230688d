import { Body, Get, Param, Patch, Post, Query, Req } from '@nestjs/common';
import type { Request } from 'express';
import { CurrentSite } from '../common/auth/decorators';
import { SiteIdParamDto } from '../common/http/params';
import { ApiController, Route } from '../common/http/route.decorator';
import { mapPage, Page, PageDto } from '../common/pagination/page';
import { SiteContext } from '../common/tenancy/site-context';
import { ContactsService } from './contacts.service';
import {
  ContactQueryDto,
  ContactReceiptDto,
  ContactResponseDto,
  CreateContactDto,
  toContactReceipt,
  toContactResponse,
  UpdateContactDto,
} from './dto/contact.dto';

@ApiController('api/v2/sites/:siteName/contacts', 'Contacts')
export class ContactsController {
  constructor(private readonly contacts: ContactsService) {}

  @Get()
  @Route({
    auth: 'key',
    summary: 'List contact messages',
    description: 'Newest first, keyset-paginated; filters combine.',
    ok: PageDto(ContactResponseDto),
    problems: [400],
  })
  async list(@CurrentSite() site: SiteContext, @Query() query: ContactQueryDto): Promise<Page<ContactResponseDto>> {
    return mapPage(await this.contacts.list(site, query), toContactResponse);
  }

  @Post()
  @Route({
    auth: 'public',
    summary: 'Send a contact message',
    description:
      "The site's contact form posts here, without a key (limited per client IP, RATE_LIMIT_PUBLIC_MAX); " +
      "a key may post too. The message is stored with status `new`, and the addresses of the site's " +
      '`settings.contacts.notifyEmails` are mailed. The answer says only that it arrived: no id and ' +
      'no `Location`, which an anonymous sender could not read. A filled-in `website` (a honeypot) ' +
      'gets the same answer, and nothing is stored or sent.',
    created: ContactReceiptDto,
    problems: [400, 429],
  })
  async create(
    @CurrentSite() site: SiteContext,
    @Body() dto: CreateContactDto,
    @Req() req: Request,
  ): Promise<ContactReceiptDto> {
    const { receivedAt } = await this.contacts.create(site, dto, {
      clientIp: req.ip ?? null,
      userAgent: req.get('user-agent') ?? null,
    });
    return toContactReceipt(receivedAt);
  }

  @Get(':id')
  @Route({ auth: 'key', summary: 'Get a contact message', ok: ContactResponseDto })
  async get(@CurrentSite() site: SiteContext, @Param() { id }: SiteIdParamDto): Promise<ContactResponseDto> {
    return toContactResponse(await this.contacts.get(site, id));
  }

  @Patch(':id')
  @Route({
    auth: 'key',
    summary: 'Update a contact message',
    description: 'Its status, tags and metadata, and the sender details an operator corrects; the message stays.',
    ok: ContactResponseDto,
    problems: [400],
  })
  async update(
    @CurrentSite() site: SiteContext,
    @Param() { id }: SiteIdParamDto,
    @Body() dto: UpdateContactDto,
  ): Promise<ContactResponseDto> {
    return toContactResponse(await this.contacts.update(site, id, dto));
  }
}
