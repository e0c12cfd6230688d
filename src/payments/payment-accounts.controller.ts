import { Body, Delete, Get, Put } from '@nestjs/common';
import { CurrentSite } from '../common/auth/decorators';
import { ApiController, Route } from '../common/http/route.decorator';
import { SiteContext } from '../common/tenancy/site-context';
import { ConnectStripeDto, PaymentAccountResponseDto, toPaymentAccountResponse } from './dto/payment-account.dto';
import { PaymentAccountsService } from './payment-accounts.service';

@ApiController('api/v2/sites/:siteName/payments/stripe', { tag: 'Admin: payments', permissions: 'payments' })
export class PaymentAccountsController {
  constructor(private readonly accounts: PaymentAccountsService) {}

  @Get()
  @Route({
    auth: 'key',
    summary: 'Get the Stripe connection of a site (admin)',
    description:
      'Which modes have keys (a hint of each key, never the key), the mode the site charges in, and the path ' +
      'Stripe must post its events to. A site without a connection is `manual`: nothing is collected.',
    ok: PaymentAccountResponseDto,
    admin: true,
  })
  async getStripeConnection(@CurrentSite() site: SiteContext): Promise<PaymentAccountResponseDto> {
    return toPaymentAccountResponse(site.name, await this.accounts.get(site));
  }

  @Put()
  @Route({
    auth: 'key',
    summary: 'Connect a site to Stripe, or change its keys (admin)',
    description:
      'Per mode, a secret (or restricted) key and the signing secret of the webhook endpoint; write-only, ' +
      'sealed at rest with the server’s SECRETS_ENCRYPTION_KEY (409 `secrets_key_missing` without one). A mode ' +
      'left out keeps its keys, `null` removes them. `mode` is the one orders and subscriptions are charged in ' +
      '(409 `processor_not_connected` without its keys); products sync to every mode with keys. Needs the ' +
      'key’s current secret: a secret replaced by a roll cannot redirect the money.',
    ok: PaymentAccountResponseDto,
    problems: [409],
    admin: true,
  })
  async connectStripe(
    @CurrentSite() site: SiteContext,
    @Body() dto: ConnectStripeDto,
  ): Promise<PaymentAccountResponseDto> {
    return toPaymentAccountResponse(site.name, await this.accounts.connect(site, dto));
  }

  @Delete()
  @Route({
    auth: 'key',
    summary: 'Disconnect a site from Stripe (admin)',
    description:
      'Deletes the keys: the site is `manual` again. Products keep their Stripe ids, and orders already paid ' +
      'through Stripe keep their payment ids.',
    noContent: true,
    admin: true,
  })
  async disconnectStripe(@CurrentSite() site: SiteContext): Promise<void> {
    await this.accounts.disconnect(site);
  }
}
