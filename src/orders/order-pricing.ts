import type { PricedLine } from '../catalog/catalog.service';
import { FieldError, ValidationProblem } from '../common/errors/problems';
import type { OrdersSettings } from '../common/tenancy/site-settings';

/** Rates are basis points: 10000 is 100 %. */
export const BASIS_POINTS = 10_000;

/** What an order keeps of one line's money (integer minor units of the order's currency). */
export interface LineAmounts {
  /** unitAmount × quantity. */
  subtotalAmount: number;
  /** Basis points applied (0 for `unspecified`). */
  taxRate: number;
  taxAmount: number;
  /** What the line costs the buyer: subtotal + tax when exclusive, the subtotal otherwise. */
  totalAmount: number;
}

export interface OrderTotals {
  currency: string;
  subtotalAmount: number;
  taxAmount: number;
  totalAmount: number;
}

/** `round(numerator / denominator)`, halves up, for non-negative integers. */
function divideHalfUp(numerator: bigint, denominator: bigint): bigint {
  return (2n * numerator + denominator) / (2n * denominator);
}

/**
 * The rate of a line: none for `unspecified`; else the site's rate for the product's tax code,
 * else the site's default rate, else 0.
 */
export function taxRateFor(line: Pick<PricedLine, 'taxCode' | 'taxBehavior'>, settings?: OrdersSettings): number {
  if (line.taxBehavior === 'unspecified') return 0;
  const byCode = line.taxCode !== null ? settings?.taxRates?.[line.taxCode] : undefined;
  return byCode ?? settings?.defaultTaxRate ?? 0;
}

/**
 * One line's amounts, in exact integer arithmetic (BigInt), rounded half up once, per line:
 * - `exclusive`: tax = round(subtotal × rate), added to the subtotal;
 * - `inclusive`: the subtotal contains the tax: tax = round(subtotal − subtotal / (1 + rate))
 *   = round(subtotal × rate / (1 + rate)), and the total is the subtotal;
 * - `unspecified`: no tax.
 * Amounts past Number.MAX_SAFE_INTEGER answer null (the caller refuses the order).
 */
export function lineAmounts(
  unitAmount: number,
  quantity: number,
  behavior: PricedLine['taxBehavior'],
  rate: number,
): LineAmounts | null {
  const subtotal = BigInt(unitAmount) * BigInt(quantity);
  const r = BigInt(behavior === 'unspecified' ? 0 : rate);
  const base = BigInt(BASIS_POINTS);
  const tax =
    behavior === 'exclusive'
      ? divideHalfUp(subtotal * r, base)
      : behavior === 'inclusive'
        ? divideHalfUp(subtotal * r, base + r)
        : 0n;
  const total = behavior === 'exclusive' ? subtotal + tax : subtotal;
  if (total > BigInt(Number.MAX_SAFE_INTEGER)) return null;
  return {
    subtotalAmount: Number(subtotal),
    taxRate: Number(r),
    taxAmount: Number(tax),
    totalAmount: Number(total),
  };
}

/**
 * Prices an order from the catalog's lines and the site's tax settings: one currency (a line
 * in another is a 400 naming it), each line's amounts, and the totals as sums of the lines.
 */
export function priceOrder(
  lines: PricedLine[],
  settings: OrdersSettings | undefined,
): { lines: Array<PricedLine & LineAmounts>; totals: OrderTotals } {
  const currency = lines[0].currency;
  const errors: FieldError[] = [];
  const priced: Array<PricedLine & LineAmounts> = [];
  lines.forEach((line, i) => {
    if (line.currency !== currency) {
      errors.push({
        path: `lines.${i}.productId`,
        message: `is priced in ${line.currency}, but the order is in ${currency} (the currency of line 0): one currency per order`,
      });
      return;
    }
    const amounts = lineAmounts(line.unitAmount, line.quantity, line.taxBehavior, taxRateFor(line, settings));
    if (!amounts) {
      errors.push({ path: `lines.${i}.quantity`, message: 'makes an amount too large to represent' });
      return;
    }
    priced.push({ ...line, ...amounts });
  });
  if (errors.length) throw new ValidationProblem(errors);
  const sum = (pick: (l: LineAmounts) => number) => priced.reduce((n, l) => n + BigInt(pick(l)), 0n);
  const totals = {
    subtotal: sum((l) => l.subtotalAmount),
    tax: sum((l) => l.taxAmount),
    total: sum((l) => l.totalAmount),
  };
  if (totals.total > BigInt(Number.MAX_SAFE_INTEGER))
    throw new ValidationProblem([{ path: 'lines', message: 'make a total too large to represent' }]);
  return {
    lines: priced,
    totals: {
      currency,
      subtotalAmount: Number(totals.subtotal),
      taxAmount: Number(totals.tax),
      totalAmount: Number(totals.total),
    },
  };
}
