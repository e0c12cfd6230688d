import { Body, Get, Param, Post, Query } from '@nestjs/common';
import { CurrentSite } from '../common/auth/decorators';
import { SiteIdParamDto } from '../common/http/params';
import { ApiController, Route } from '../common/http/route.decorator';
import { mapPage, Page, PageDto } from '../common/pagination/page';
import { SiteContext } from '../common/tenancy/site-context';
import {
  EmailMessageQueryDto,
  EmailMessageResponseDto,
  EmailMessageSummaryDto,
  toEmailMessageResponse,
  toEmailMessageSummary,
} from './dto/email-message.dto';
import { SendEmailDto, SendEmailResponseDto, toSendEmailResponse } from './dto/email-send.dto';
import { EmailService } from './email.service';

@ApiController('api/v2/sites/:siteName/email', { tag: 'Email', permissions: 'email' })
export class EmailController {
  constructor(private readonly email: EmailService) {}

  @Post('send')
  @Route({
    auth: 'key',
    summary: 'Send an email',
    // Rendered now (Liquid, CSS inlining, the text part), before the 202.
    cost: 'render',
    description:
      'Up to 50 recipients (to, cc, bcc), one message each. Either `subject` with `html` and/or `text`, or a ' +
      "template: `templateType` (the site's published one, else the built-in default) or `templateId`, with " +
      '`data` for its variables. Answers 202 once recorded; a job delivers over SMTP with retries. ' +
      'Idempotency-Key replays the first answer. HTML over its limits (nesting, elements, CSS selectors ' +
      'to inline; docs/security.md) is a 400 `template_limit_exceeded` and nothing is recorded.',
    accepted: SendEmailResponseDto,
    bodyExample: {
      to: [{ email: 'ada@example.com', name: 'Ada Lovelace' }],
      subject: 'Welcome aboard',
      html: '<p>Glad to have you.</p>',
      tags: ['signup'],
    },
    idempotent: true,
  })
  async sendEmail(@CurrentSite() site: SiteContext, @Body() dto: SendEmailDto): Promise<SendEmailResponseDto> {
    return toSendEmailResponse(await this.email.sendNow(site, dto));
  }

  @Get('messages')
  @Route({
    auth: 'key',
    summary: 'List sent messages (admin)',
    description: 'Newest first, keyset-paginated; filter by status (queued, sending, sent, failed).',
    ok: PageDto(EmailMessageSummaryDto),
    admin: true,
  })
  async listMessagesEmail(
    @CurrentSite() site: SiteContext,
    @Query() query: EmailMessageQueryDto,
  ): Promise<Page<EmailMessageSummaryDto>> {
    return mapPage(await this.email.listMessages(site, query), toEmailMessageSummary);
  }

  @Get('messages/:id')
  @Route({
    auth: 'key',
    summary: 'Get a message (admin)',
    description:
      'What was sent (headers, HTML and text), its status and the SMTP answer. Secret values (sign-in codes, ' +
      'confirmation, preferences and unsubscribe links) show as `[redacted:<name>]`: only the recipient got them.',
    ok: EmailMessageResponseDto,
    admin: true,
  })
  async getMessageEmail(
    @CurrentSite() site: SiteContext,
    @Param() { id }: SiteIdParamDto,
  ): Promise<EmailMessageResponseDto> {
    return toEmailMessageResponse(await this.email.getMessage(site, id));
  }
}
