import { ValidationProblem } from '../common/errors/problems';
import { CreateOrderDto } from './dto/order.dto';

/** A signed-in site user placing or reading their own orders. */
export interface Buyer {
  userId: number;
  /** Their address, normalised. */
  email: string;
  name: string;
  /** Their address has been proved (a verified code): mail to it may carry what they wrote. */
  verified: boolean;
}

/** The order's customer: the body's (a key), or the signed-in buyer under their own address. */
export function customerOf(
  dto: CreateOrderDto,
  buyer?: Buyer,
): { customerEmail: string; customerName: string | null; customerPhone: string | null } {
  if (!buyer) {
    if (!dto.customer) throw new ValidationProblem([{ path: 'customer', message: 'is required with a key' }]);
    return {
      customerEmail: dto.customer.email.toLowerCase(),
      customerName: dto.customer.name ?? null,
      customerPhone: dto.customer.phone ?? null,
    };
  }
  if (dto.customer && dto.customer.email.toLowerCase() !== buyer.email)
    throw new ValidationProblem([
      { path: 'customer.email', message: 'must be the signed-in user’s own address (or left out)' },
    ]);
  return {
    customerEmail: buyer.email,
    customerName: dto.customer?.name ?? (buyer.name || null),
    customerPhone: dto.customer?.phone ?? null,
  };
}
