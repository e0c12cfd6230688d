import { Get, Param, Post, Req, Res } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { CurrentSite } from '../../common/auth/decorators';
import { SkipRateLimit } from '../../common/rate-limit/rate-limit.guard';
import { ApiController, Route } from '../../common/http/route.decorator';
import { SiteContext } from '../../common/tenancy/site-context';
import { ClickTargetDto, TrackingTokenParamDto } from '../dto/tracking.dto';
import { TrackingClient, TrackingService } from './tracking.service';

/** A transparent 1x1 GIF. */
const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
const TOKEN_PARAM = [{ name: 'token', schema: { type: 'string' as const, maxLength: 120 } }];

function client(req: Request): TrackingClient {
  return { userAgent: req.headers['user-agent'], ip: req.ip };
}

/**
 * Open and click tracking of campaign mail (docs/newsletter.md, "Tracking"). The interface's
 * POSTs, and the GETs a mail client actually sends (the pixel is an image, a link a redirect).
 * Not limited per IP: mail privacy proxies fetch for thousands of people from a few addresses.
 * The signed token is the gate (forged: 404), and one token counts at most 30 times a minute.
 */
@ApiController('api/v2/sites/:siteName/newsletter/track', { tag: 'Newsletter', permissions: 'none' })
@SkipRateLimit()
export class TrackingController {
  constructor(private readonly tracking: TrackingService) {}

  @Post('open/:token')
  @Route({
    auth: 'public',
    exampleAnswers: { status: 404, because: 'the token is the one a campaign mail carries; no example can know it' },
    summary: 'Record an open',
    description:
      'Counts an open of a campaign mail by the token of its pixel. Answered once the event is stored; opens ' +
      'by machines (mail privacy proxies, within seconds of delivery) are stored but flagged. Forged token: 404.',
    params: TOKEN_PARAM,
    noContent: true,
    problems: [429],
  })
  async trackNewsletterOpen(
    @CurrentSite() site: SiteContext,
    @Param() { token }: TrackingTokenParamDto,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<void> {
    await this.tracking.open(site, token, client(req));
    res.setHeader('Cache-Control', 'no-store');
  }

  @Get('open/:token')
  @Route({
    auth: 'public',
    exampleAnswers: { status: 404, because: 'the token is the one a campaign mail carries; no example can know it' },
    summary: 'Open pixel',
    description: 'The image a campaign mail shows: records the open like the POST and answers a 1x1 GIF.',
    params: TOKEN_PARAM,
    problems: [429],
  })
  @ApiResponse({
    status: 200,
    description: 'A 1x1 transparent GIF',
    content: { 'image/gif': { schema: { type: 'string', format: 'binary' } } },
  })
  async newsletterOpenPixel(
    @CurrentSite() site: SiteContext,
    @Param() { token }: TrackingTokenParamDto,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    await this.tracking.open(site, token, client(req));
    res.setHeader('Cache-Control', 'no-store, private');
    res.status(200).type('image/gif').send(PIXEL);
  }

  @Post('click/:token')
  @Route({
    auth: 'public',
    exampleAnswers: { status: 404, because: 'the token is the one a campaign mail carries; no example can know it' },
    summary: 'Record a click',
    description:
      'Counts a click of a campaign link by its token and answers where the link leads. Answered once the event ' +
      'is stored; a scanner’s clicks (within seconds of delivery, every link at once) are flagged. Forged: 404.',
    params: TOKEN_PARAM,
    ok: ClickTargetDto,
    problems: [429],
  })
  async trackNewsletterClick(
    @CurrentSite() site: SiteContext,
    @Param() { token }: TrackingTokenParamDto,
    @Req() req: Request,
  ): Promise<ClickTargetDto> {
    return { url: await this.tracking.click(site, token, client(req)) };
  }

  @Get('click/:token')
  @Route({
    auth: 'public',
    exampleAnswers: { status: 404, because: 'the token is the one a campaign mail carries; no example can know it' },
    summary: 'Follow a tracked link',
    description: 'The link of a campaign mail: records the click like the POST and redirects (302) to the target.',
    params: TOKEN_PARAM,
    problems: [429],
  })
  @ApiResponse({
    status: 302,
    description: 'To the link’s target',
    headers: { Location: { description: 'The target URL', schema: { type: 'string', format: 'uri' } } },
  })
  async followNewsletterLink(
    @CurrentSite() site: SiteContext,
    @Param() { token }: TrackingTokenParamDto,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const url = await this.tracking.click(site, token, client(req));
    res.setHeader('Cache-Control', 'no-store, private');
    res.setHeader('Referrer-Policy', 'no-referrer');
    // No body: a mail client follows the Location, and nothing else is documented.
    res.status(302).setHeader('Location', url);
    res.end();
  }
}
