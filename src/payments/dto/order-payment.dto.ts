import { ApiProperty } from '@nestjs/swagger';
import { PAYMENT_MODES, type PaymentMode } from '../entities/payment-account.entity';

/** What a checkout needs to confirm an order's PaymentIntent with Stripe.js (the Payment Element). */
export class OrderPaymentIntentDto {
  @ApiProperty({ enum: ['stripe'], example: 'stripe' }) processor: 'stripe';
  @ApiProperty({ enum: PAYMENT_MODES, example: 'test', description: 'The Stripe mode it was made in' })
  mode: PaymentMode;
  @ApiProperty({ example: 'pi_3MtwBwLkdIwHu7ix28a3tqPa' }) paymentIntentId: string;
  @ApiProperty({
    example: 'pi_3MtwBwLkdIwHu7ix28a3tqPa_secret_YrKJUKribcBjcG8HVhfZluoGH',
    description:
      'For Stripe.js (`stripe.confirmPayment` with the Payment Element) in the buyer’s browser only; never stored ' +
      'by Sitebase',
  })
  clientSecret: string;
  @ApiProperty({ example: 4320, description: 'The order’s total, in minor units (never the client’s)' })
  amount: number;
  @ApiProperty({ example: 'eur', description: 'The order’s currency, lower case as Stripe writes it' })
  currency: string;
  @ApiProperty({
    example: 'requires_payment_method',
    description: 'The PaymentIntent’s status at Stripe (`requires_payment_method`, `processing`, `succeeded`, …)',
  })
  status: string;
}
