import { Body, Get, Param, Patch, Post, Query, Req, Res } from '@nestjs/common';
import { ApiExtraModels, getSchemaPath } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { CurrentPrincipal, CurrentSite } from '../common/auth/decorators';
import { Principal } from '../common/auth/principal';
import { SiteIdParamDto } from '../common/http/params';
import { created } from '../common/http/public-urls';
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

@ApiController('api/v2/sites/:siteName/contacts', { tag: 'Contacts', permissions: 'contacts' })
@ApiExtraModels(ContactResponseDto, ContactReceiptDto)
export class ContactsController {
  constructor(private readonly contacts: ContactsService) {}

  @Get()
  @Route({
    auth: 'key',
    summary: 'List contact messages',
    description: 'Newest first, keyset-paginated; filters combine.',
    ok: PageDto(ContactResponseDto),
  })
  async listContacts(
    @CurrentSite() site: SiteContext,
    @Query() query: ContactQueryDto,
  ): Promise<Page<ContactResponseDto>> {
    return mapPage(await this.contacts.list(site, query), toContactResponse);
  }

  @Post()
  @Route({
    // A key changes the answer (the contact and Location), so the document says one may be sent.
    auth: 'optional-key',
    summary: 'Send a contact message',
    description:
      "The site's contact form posts here, without a key (limited per client IP, RATE_LIMIT_PUBLIC_MAX). " +
      "The message is stored with status `new`, and the addresses of the site's " +
      '`settings.contacts.notifyEmails` are mailed. Without a key the answer says only that it arrived ' +
      '(`ContactReceiptDto`: no id and no `Location`, which an anonymous sender could not read). With the ' +
      "site's key (an import, a backend) it is the stored contact with `Location`, like every other create. " +
      'A filled-in `website` (a honeypot) gets the receipt, and nothing is stored or sent.',
    created: {
      description: 'The stored contact (with a key, and `Location`), or the receipt (without one)',
      schema: { oneOf: [{ $ref: getSchemaPath(ContactResponseDto) }, { $ref: getSchemaPath(ContactReceiptDto) }] },
      headers: {
        Location: {
          description: 'With a key: the stored contact',
          required: false,
          schema: { type: 'string', format: 'uri' },
        },
      },
    },
  })
  async createContact(
    @CurrentSite() site: SiteContext,
    @CurrentPrincipal() principal: Principal,
    @Body() dto: CreateContactDto,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ContactResponseDto | ContactReceiptDto> {
    const { receivedAt, contact } = await this.contacts.create(site, dto, {
      clientIp: req.ip ?? null,
      userAgent: req.get('user-agent') ?? null,
    });
    // Only a key may read contacts back: anyone else learns only that the message arrived.
    if (principal.kind !== 'key' || contact === null) return toContactReceipt(receivedAt);
    created(res, `/api/v2/sites/${site.name}/contacts/${contact.id}`);
    return toContactResponse(contact);
  }

  @Get(':id')
  @Route({ auth: 'key', summary: 'Get a contact message', ok: ContactResponseDto })
  async getContact(@CurrentSite() site: SiteContext, @Param() { id }: SiteIdParamDto): Promise<ContactResponseDto> {
    return toContactResponse(await this.contacts.get(site, id));
  }

  @Patch(':id')
  @Route({
    auth: 'key',
    summary: 'Update a contact message',
    description: 'Its status, tags and metadata, and the sender details an operator corrects; the message stays.',
    ok: ContactResponseDto,
  })
  async updateContact(
    @CurrentSite() site: SiteContext,
    @Param() { id }: SiteIdParamDto,
    @Body() dto: UpdateContactDto,
  ): Promise<ContactResponseDto> {
    return toContactResponse(await this.contacts.update(site, id, dto));
  }
}
