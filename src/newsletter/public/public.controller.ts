import { applyDecorators, Body, Get, Param, Post, Query, Req, Res, Type } from '@nestjs/common';
import { ApiProduces, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { CurrentPrincipal, CurrentSite } from '../../common/auth/decorators';
import { Principal } from '../../common/auth/principal';
import { ProblemDto } from '../../common/errors/api-problems.decorator';
import { ApiController, Route } from '../../common/http/route.decorator';
import { SiteContext } from '../../common/tenancy/site-context';
import { AudienceService, LinkOutcome } from '../audience/audience.service';
import { ConfirmationsService } from '../audience/confirmations.service';
import {
  ConfirmDto,
  LinkResultDto,
  PreferencesQueryDto,
  SubscribeDto,
  SubscribeReceiptDto,
  TokenParamDto,
  UnsubscribeDto,
  UnsubscribeQueryDto,
} from '../dto/public.dto';
import { PAGE_CSP } from './pages';
import { PageAnswer, PublicPages } from './public-pages.service';
import { ClientInfo } from '../audience/subscription-writer';

const client = (req: Request): ClientInfo => ({ ip: req.ip ?? null, userAgent: req.get('user-agent') ?? null });
/** A browser following a link or posting a form, rather than an API client. */
const wantsHtml = (req: Request) => req.accepts(['json', 'html']) === 'html';

function toLinkResult(result: LinkResultDto['result'], outcome: LinkOutcome): LinkResultDto {
  return { result, lists: outcome.lists.map((l) => ({ listId: l.listId, name: l.name, status: l.status })) };
}

/** Handlers that may answer a page send their JSON themselves too; a link's answer is never kept. */
function sendJson(res: Response, body: LinkResultDto): void {
  res.setHeader('Cache-Control', 'no-store');
  res.status(200).json(body);
}

function sendPage(res: Response, answer: PageAnswer): void {
  res.setHeader('Cache-Control', 'no-store');
  if ('redirect' in answer) {
    res.redirect(303, answer.redirect);
    return;
  }
  res.setHeader('Content-Security-Policy', PAGE_CSP);
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.status(answer.status).type('html').send(answer.html);
}

const PAGE = { 'text/html': { schema: { type: 'string' } } };

/**
 * What a browser gets besides the JSON: each of `pages` (a status) may also be an HTML page, and
 * `redirect` documents the 303 it may be sent instead. Listed above the verb, so it replaces what
 * @Route said of those statuses.
 */
function PageAnswers(options: { ok?: Type<unknown>; problems: number[]; redirect?: string }): MethodDecorator {
  const problem = { 'application/problem+json': { schema: { $ref: getSchemaPath(ProblemDto) } } };
  return applyDecorators(
    ...(options.ok
      ? [
          ApiResponse({
            status: 200,
            description: 'JSON for an API client; a page (text/html) for a browser (`Accept: text/html`)',
            content: { 'application/json': { schema: { $ref: getSchemaPath(options.ok) } }, ...PAGE },
          }),
        ]
      : []),
    ...options.problems.map((status) =>
      ApiResponse({
        status,
        description: 'A problem; a browser gets it as a page (text/html)',
        content: { ...problem, ...PAGE },
      }),
    ),
    ...(options.redirect
      ? [
          ApiResponse({
            status: 303,
            description: options.redirect,
            headers: { Location: { required: true, schema: { type: 'string' } } },
            // Express's short note for a client that does not follow redirects.
            content: PAGE,
          }),
        ]
      : []),
  );
}

/** What people reach without a key: the signup form's post and the links of the newsletter's mail. */
@ApiController('api/v2/sites/:siteName/newsletter', { tag: 'Newsletter', permissions: 'newsletter' })
export class PublicNewsletterController {
  constructor(
    private readonly audience: AudienceService,
    private readonly confirmations: ConfirmationsService,
    private readonly pages: PublicPages,
  ) {}

  @Post('subscribe')
  @Route({
    auth: 'public',
    summary: 'Subscribe',
    publishable: true,
    description:
      "A signup form posts here, without a key. Creates or updates the address's subscription and joins " +
      'the public lists named; lists with double opt-in stay `pending` until the mailed link is followed, ' +
      'the others are `active` at once (and a welcome mail is sent). The answer is the same whether or not ' +
      'the address was known. Limited per client IP (429) and per address (past it, nothing more is mailed). ' +
      'A filled-in `website` honeypot gets the same answer and nothing happens.',
    accepted: SubscribeReceiptDto,
  })
  async subscribePublicNewsletter(
    @CurrentSite() site: SiteContext,
    @Body() dto: SubscribeDto,
    @Req() req: Request,
  ): Promise<SubscribeReceiptDto> {
    const { confirmationRequired } = await this.audience.subscribe(site, dto, client(req));
    return { accepted: true, confirmationRequired };
  }

  @PageAnswers({
    ok: LinkResultDto,
    problems: [400, 409, 410],
    redirect: "A browser sent to the site's `newsletter.confirmRedirectUrl`",
  })
  @Get('confirm/:token')
  @Route({
    auth: 'public',
    exampleAnswers: { status: 400, because: 'the token is the one a mail carries; no example can know it' },
    summary: 'Confirm a subscription',
    description:
      'The link of the confirmation mail: makes the pending memberships `active`. The token is signed, ' +
      'expires (NEWSLETTER_CONFIRM_TTL_HOURS) and works once: forged is a 400 `invalid_token`, expired ' +
      '410 `token_expired`, used or replaced 410 `token_used`, and nothing changes. A browser ' +
      '(`Accept: text/html`) gets a small page in the site’s name instead (or a 303 to the site’s ' +
      '`newsletter.confirmRedirectUrl`); API clients get JSON. The re-consent link mailed to an address ' +
      'that complained (`r.…`) changes nothing when opened: it answers `confirmation_required` (a browser: ' +
      'a page whose button posts the token to `POST …/confirm`). An ordinary link of an address that ' +
      'complained is a 409 `address_complained`: it lifts no complaint.',
    ok: LinkResultDto,
    params: [{ name: 'token', schema: { type: 'string', maxLength: 200 } }],
    problems: [409, 410],
  })
  async confirmPublicNewsletter(
    @CurrentSite() site: SiteContext,
    @Param() { token }: TokenParamDto,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    if (wantsHtml(req)) return sendPage(res, await this.pages.open(site, token, client(req)));
    const answer = await this.confirmations.open(site, token, client(req));
    sendJson(res, toLinkResult(answer.result, answer));
  }

  @PageAnswers({
    ok: LinkResultDto,
    problems: [400, 409, 410],
    redirect: "A browser sent to the site's `newsletter.confirmRedirectUrl`",
  })
  @Post('confirm')
  @Route({
    auth: 'public',
    exampleAnswers: { status: 400, because: 'the token is the one a mail carries; no example can know it' },
    summary: 'Confirm a subscription by posting its token',
    description:
      'What the button of the re-consent page posts (a form; JSON too): the token of a confirmation link. ' +
      'A re-consent token (`r.…`, mailed only to an address that complained, in a mail the site cannot ' +
      'reword) makes the pending memberships `active` and lifts the complaint: the only way it is lifted ' +
      '(docs/deliverability.md). An ordinary token (`c.…`) confirms as its link does. Answers and problems ' +
      'as `GET …/confirm/{token}`; a browser gets the page, or a 303 to the site’s `newsletter.confirmRedirectUrl`.',
    ok: LinkResultDto,
    body: { alsoAs: 'form' },
    problems: [410],
  })
  async confirmByPostPublicNewsletter(
    @CurrentSite() site: SiteContext,
    @Body() { token }: ConfirmDto,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    if (wantsHtml(req)) return sendPage(res, await this.pages.press(site, token, client(req)));
    const answer = await this.confirmations.press(site, token, client(req));
    sendJson(res, toLinkResult(answer.result, answer));
  }

  @PageAnswers({ problems: [], redirect: 'A browser sent back to the preferences page it posted from' })
  @Post('unsubscribe')
  @Route({
    auth: 'optional-key',
    exampleAnswers: { status: 400, because: 'the token is the one a mail carries; no example can know it' },
    summary: 'Unsubscribe',
    description:
      'Leaves one list (`listId`) or every list, by the token of a mail link (in the body, or in the URL ' +
      'of a `List-Unsubscribe` header). Takes JSON or a form: RFC 8058 one-click posts ' +
      '(`List-Unsubscribe=One-Click`, form-encoded, token in the URL) leave every list, and the hosted ' +
      'preferences page posts its forms here (a browser is sent back to that page, 303). With the ' +
      'site\'s key (its own "manage my subscription" page), `email` alone names the address, no token ' +
      'needed; without a key the token is required. Idempotent: leaving again, or by the link of an ' +
      'address since deleted (or, with a key, an address the site does not have), answers 200.',
    ok: LinkResultDto,
    body: { alsoAs: 'form' },
  })
  async unsubscribePublicNewsletter(
    @CurrentSite() site: SiteContext,
    @CurrentPrincipal() principal: Principal,
    @Body() dto: UnsubscribeDto,
    @Query() query: UnsubscribeQueryDto,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const outcome = await this.audience.unsubscribe(site, dto, query.token, principal.kind === 'key');
    const token = dto.token ?? query.token;
    if (wantsHtml(req) && token && dto['List-Unsubscribe'] === undefined)
      return sendPage(res, this.pages.afterUnsubscribe(site, token, dto.listId === undefined));
    sendJson(res, toLinkResult('unsubscribed', outcome));
  }

  @PageAnswers({ problems: [400, 404] })
  @Get('preferences/:token')
  @ApiProduces('text/html')
  @Route({
    auth: 'public',
    exampleAnswers: { status: 400, because: 'the token is the one a mail carries; no example can know it' },
    summary: 'Subscription preferences page',
    description:
      'An HTML page for people, outside the interface: the link of every newsletter mail. Shows the ' +
      "address's lists and lets the person leave one or all (its forms post to `unsubscribe`). No script, " +
      'no third-party asset; an invalid link is a page too (400).',
    ok: { description: 'The page (text/html)', schema: { type: 'string' } },
    params: [{ name: 'token', schema: { type: 'string', maxLength: 200 } }],
  })
  async preferencesPublicNewsletter(
    @CurrentSite() site: SiteContext,
    @Param() { token }: TokenParamDto,
    @Query() { done }: PreferencesQueryDto,
    @Res() res: Response,
  ): Promise<void> {
    sendPage(res, await this.pages.preferences(site, token, done));
  }
}
