import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { sql } from '../database/sql';
import type { PaymentMode } from './entities/payment-account.entity';
import { PaymentCustomerEntity } from './entities/payment-customer.entity';

/** Site users' Stripe Customers and saved payment methods, per mode. */
@Injectable()
export class PaymentCustomersRepository {
  find(em: EntityManager, siteId: number, userId: number, mode: PaymentMode): Promise<PaymentCustomerEntity | null> {
    return em.getRepository(PaymentCustomerEntity).findOne({ where: { siteId, userId, mode } });
  }

  /** The site user whose Customer this is (a Stripe event names the Customer); null when none. */
  async userOf(em: EntityManager, siteId: number, mode: PaymentMode, customerId: string): Promise<number | null> {
    const row = await em.getRepository(PaymentCustomerEntity).findOne({ where: { siteId, mode, customerId } });
    return row?.userId ?? null;
  }

  /** Records the user's Customer; the first one recorded wins (two requests racing keep one). Answers the one kept. */
  async saveCustomer(
    em: EntityManager,
    siteId: number,
    userId: number,
    mode: PaymentMode,
    customerId: string,
  ): Promise<string> {
    const { rows } = await sql<{ customer_id: string }>(
      em,
      `INSERT INTO payment_customers (site_id, user_id, mode, customer_id) VALUES ($1, $2, $3, $4)
       ON CONFLICT (site_id, user_id, mode) DO UPDATE SET updated_at = payment_customers.updated_at
       RETURNING customer_id`,
      [siteId, userId, mode, customerId],
    );
    return rows[0].customer_id;
  }

  /** The payment method a payment of this Customer saved for later charges. */
  async savePaymentMethod(
    em: EntityManager,
    siteId: number,
    mode: PaymentMode,
    customerId: string,
    paymentMethodId: string,
  ): Promise<boolean> {
    const { rows } = await sql(
      em,
      `UPDATE payment_customers SET payment_method_id = $4, updated_at = now()
       WHERE site_id = $1 AND mode = $2 AND customer_id = $3 RETURNING user_id`,
      [siteId, mode, customerId, paymentMethodId],
    );
    return rows.length > 0;
  }
}
