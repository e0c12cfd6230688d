import { Headers, HttpCode, Post } from '@nestjs/common';
import { ApiController, Route, RouteOptions } from '../../common/http/route.decorator';
import { RawBody } from '../../common/input/request-body';
import {
  ProviderBatchOutcomeDto,
  ProviderEventOutcomeDto,
  ProviderPayloadDto,
  SesOutcomeDto,
  toProviderBatchOutcome,
  toProviderEventOutcome,
  toSesOutcome,
} from '../dto/provider-event.dto';
import { ProviderEventsService } from './provider-events.service';
import { POSTMARK_TOKEN_HEADER } from './providers/postmark';
import { SENDGRID_SIGNATURE_HEADER, SENDGRID_TIMESTAMP_HEADER } from './providers/sendgrid';

/** What every provider's route shares: public (the provider proves itself), operator-level, raw bytes. */
const PROVIDER_ROUTE = {
  auth: 'public',
  admin: true,
  body: { raw: true, optional: ProviderPayloadDto },
  ok: ProviderEventOutcomeDto,
  problems: [401, 404],
  exampleAnswers: { status: 404, because: 'the provider’s setting is empty on a server that does not use it' },
} satisfies Partial<RouteOptions>;

/**
 * Bounce and complaint webhooks of the operator's relay (docs/deliverability.md, "From a
 * provider"): not per site, since the relay account is the server's; each message names its site.
 */
@ApiController('api/v2/email/providers', { tag: 'Admin: email providers', permissions: 'none' })
export class ProviderEventsController {
  constructor(private readonly events: ProviderEventsService) {}

  @Post('mailgun/events')
  @HttpCode(200)
  @Route({
    ...PROVIDER_ROUTE,
    summary: 'Receive a Mailgun bounce or complaint event',
    description:
      'Mailgun’s webhook (events `failed`, `complained`), verified by its `signature` (HMAC-SHA256 of ' +
      'timestamp + token with MAILGUN_WEBHOOK_SIGNING_KEY, at most 5 minutes old, each token once). 404 while ' +
      'the setting is empty; 401 unsigned or badly signed, nothing changed.',
  })
  async receiveMailgunEvent(@RawBody() raw: Buffer): Promise<ProviderEventOutcomeDto> {
    return toProviderEventOutcome(await this.events.mailgun(raw));
  }

  @Post('postmark/events')
  @HttpCode(200)
  @Route({
    ...PROVIDER_ROUTE,
    summary: 'Receive a Postmark bounce or spam complaint',
    description:
      'Postmark’s Bounce and Spam Complaint webhooks, with the custom header ' +
      `\`${POSTMARK_TOKEN_HEADER}\` set to POSTMARK_WEBHOOK_TOKEN (compared in constant time). 404 while the ` +
      'setting is empty; 401 without the token, nothing changed.',
    headers: [{ name: POSTMARK_TOKEN_HEADER, required: true, description: 'POSTMARK_WEBHOOK_TOKEN' }],
  })
  async receivePostmarkEvent(
    @RawBody() raw: Buffer,
    @Headers(POSTMARK_TOKEN_HEADER) token: string | undefined,
  ): Promise<ProviderEventOutcomeDto> {
    return toProviderEventOutcome(await this.events.postmark(raw, token));
  }

  @Post('sendgrid/events')
  @HttpCode(200)
  @Route({
    ...PROVIDER_ROUTE,
    ok: ProviderBatchOutcomeDto,
    body: { ...PROVIDER_ROUTE.body, array: true },
    summary: 'Receive a batch of SendGrid bounce and spam report events',
    description:
      'SendGrid’s Signed Event Webhook (events `bounce`, `spamreport`; the rest ignored): ECDSA P-256 over ' +
      'the timestamp header + the raw body, verified with SENDGRID_WEBHOOK_PUBLIC_KEY, at most 5 minutes old. ' +
      '404 while the setting is empty; 401 unsigned or badly signed; 400 when an event is malformed; nothing changed.',
    headers: [
      { name: SENDGRID_SIGNATURE_HEADER, required: true, description: 'base64 DER ECDSA signature' },
      { name: SENDGRID_TIMESTAMP_HEADER, required: true, description: 'Unix seconds' },
    ],
  })
  async receiveSendgridEvents(
    @RawBody() raw: Buffer,
    @Headers(SENDGRID_SIGNATURE_HEADER) signature: string | undefined,
    @Headers(SENDGRID_TIMESTAMP_HEADER) timestamp: string | undefined,
  ): Promise<ProviderBatchOutcomeDto> {
    return toProviderBatchOutcome(await this.events.sendgrid(raw, signature, timestamp));
  }

  @Post('ses/events')
  @HttpCode(200)
  @Route({
    ...PROVIDER_ROUTE,
    ok: SesOutcomeDto,
    body: { ...PROVIDER_ROUTE.body, alsoAs: 'text' },
    problems: [401, 404, 503],
    summary: 'Receive Amazon SES bounces and complaints through Amazon SNS',
    description:
      'The HTTPS subscription of the SNS topic an SES configuration set (or identity) publishes Bounce and ' +
      'Complaint events to. SNS posts JSON as `text/plain`. Verified by the SNS signature (SignatureVersion 1: ' +
      'SHA1withRSA, 2: SHA256withRSA) with the certificate at SigningCertURL, which must be https on ' +
      '`sns.<region>.amazonaws.com` (or `.com.cn`); TopicArn must be one of SES_SNS_TOPIC_ARNS; at most an hour ' +
      'old; the same MessageId again answers `duplicate`. A SubscriptionConfirmation is confirmed by calling its ' +
      'SubscribeURL (an SNS URL only). 404 while the setting is empty; 401 unsigned, badly signed, another topic ' +
      'or stale, nothing changed; 503 when SNS does not answer (SNS retries).',
  })
  async receiveSesEvent(@RawBody() raw: Buffer): Promise<SesOutcomeDto> {
    return toSesOutcome(await this.events.ses(raw));
  }
}
