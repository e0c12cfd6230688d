import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { SiteContext } from '../../common/tenancy/site-context';
import type { StripeOfSite } from '../payment-accounts.service';
import { PaymentCustomersRepository } from '../payment-customers.repository';
import { STRIPE_METADATA } from './stripe-metadata';

/**
 * A site user's Stripe Customer in a mode (payment_customers): the one recorded, else made now
 * (idempotency key per site, user and mode, so two requests at once make one) and recorded, the
 * first recorded winning. Called outside any transaction: it calls Stripe.
 */
@Injectable()
export class StripeCustomers {
  constructor(
    private readonly dataSource: DataSource,
    private readonly customers: PaymentCustomersRepository,
  ) {}

  async customerOf(
    { stripe, mode }: StripeOfSite,
    site: SiteContext,
    userId: number,
    contact: { email: string | null; name: string | null },
  ): Promise<string> {
    const known = await this.customers.find(this.dataSource.manager, site.id, userId, mode);
    if (known) return known.customerId;
    const made = await stripe.customers.create(
      {
        ...(contact.email ? { email: contact.email } : {}),
        ...(contact.name ? { name: contact.name } : {}),
        metadata: { [STRIPE_METADATA.site]: String(site.id), [STRIPE_METADATA.user]: String(userId) },
      },
      { idempotencyKey: `sitebase-customer-${site.id}-${userId}-${mode}` },
    );
    return this.customers.saveCustomer(this.dataSource.manager, site.id, userId, mode, made.id);
  }
}
