import type { PricedLine } from '../catalog/catalog.service';
import { Problem } from '../common/errors/problems';
import { lineAmounts, priceOrder, taxRateFor } from './order-pricing';

const line = (over: Partial<PricedLine> = {}): PricedLine => ({
  productId: 1,
  variantId: null,
  name: 'Mug',
  sku: null,
  unitAmount: 1000,
  currency: 'EUR',
  quantity: 1,
  taxCode: 'standard',
  taxBehavior: 'exclusive',
  recurring: null,
  ...over,
});

function problemOf(fn: () => unknown): Problem {
  try {
    fn();
  } catch (e) {
    if (e instanceof Problem) return e;
    throw e;
  }
  throw new Error('expected a problem');
}

describe('order pricing (integer minor units, half up per line)', () => {
  it('exclusive: the tax is added', () => {
    expect(lineAmounts(1000, 3, 'exclusive', 2000)).toEqual({
      subtotalAmount: 3000,
      taxRate: 2000,
      taxAmount: 600,
      totalAmount: 3600,
    });
    // 19.5 % of 1000 is 195 exactly; 7 % of 5 is 0.35 (down); 10 % of 5 is 0.5 (half: up)
    expect(lineAmounts(1000, 1, 'exclusive', 1950)?.taxAmount).toBe(195);
    expect(lineAmounts(5, 1, 'exclusive', 700)?.taxAmount).toBe(0);
    expect(lineAmounts(5, 1, 'exclusive', 1000)).toEqual({
      subtotalAmount: 5,
      taxRate: 1000,
      taxAmount: 1,
      totalAmount: 6,
    });
    expect(lineAmounts(15, 1, 'exclusive', 1000)?.taxAmount).toBe(2); // 1.5 -> 2
    expect(lineAmounts(14, 1, 'exclusive', 1000)?.taxAmount).toBe(1); // 1.4 -> 1
  });

  it('inclusive: the tax is contained, round(amount - amount / (1 + rate))', () => {
    // 1190 at 19 %: 1190 - 1000 = 190
    expect(lineAmounts(1190, 1, 'inclusive', 1900)).toEqual({
      subtotalAmount: 1190,
      taxRate: 1900,
      taxAmount: 190,
      totalAmount: 1190,
    });
    // 1000 at 20 %: 1000 - 833.33 = 166.67 -> 167
    expect(lineAmounts(1000, 1, 'inclusive', 2000)?.taxAmount).toBe(167);
    // 2 × 999 at 5.5 %: 1998 - 1998 / 1.055 = 104.16 -> 104
    expect(lineAmounts(999, 2, 'inclusive', 550)).toEqual({
      subtotalAmount: 1998,
      taxRate: 550,
      taxAmount: 104,
      totalAmount: 1998,
    });
    // 21 at 10 %: 21 - 19.0909 = 1.909 -> 2 ; 11 at 10 %: 11 - 10 = 1 exactly
    expect(lineAmounts(21, 1, 'inclusive', 1000)?.taxAmount).toBe(2);
    expect(lineAmounts(11, 1, 'inclusive', 1000)?.taxAmount).toBe(1);
  });

  it('matches the formulas on many amounts and rates', () => {
    for (let amount = 0; amount < 3000; amount += 37)
      for (const rate of [0, 1, 550, 700, 1000, 1950, 2000, 2500, 10_000]) {
        const ex = lineAmounts(amount, 1, 'exclusive', rate)!;
        expect(ex.taxAmount).toBe(Math.floor((amount * rate) / 10_000 + 0.5 + 1e-9));
        const inc = lineAmounts(amount, 1, 'inclusive', rate)!;
        expect(inc.taxAmount).toBe(Math.floor(amount - amount / (1 + rate / 10_000) + 0.5 + 1e-9));
        expect(inc.totalAmount).toBe(amount);
      }
  });

  it('unspecified: no tax, whatever the rate', () => {
    expect(lineAmounts(1000, 2, 'unspecified', 2000)).toEqual({
      subtotalAmount: 2000,
      taxRate: 0,
      taxAmount: 0,
      totalAmount: 2000,
    });
  });

  it('stays exact past 2^53 intermediates, and refuses totals past it', () => {
    expect(lineAmounts(1_000_000_000_000, 9000, 'exclusive', 1)?.taxAmount).toBe(900_000_000_000);
    expect(lineAmounts(1_000_000_000_000, 10_000, 'exclusive', 0)).toBeNull();
  });

  it('takes the rate of the tax code, else the default, else 0; none for unspecified', () => {
    const settings = { taxRates: { standard: 2000, zero: 0 }, defaultTaxRate: 1000 };
    expect(taxRateFor(line(), settings)).toBe(2000);
    expect(taxRateFor(line({ taxCode: 'zero' }), settings)).toBe(0);
    expect(taxRateFor(line({ taxCode: 'other' }), settings)).toBe(1000);
    expect(taxRateFor(line({ taxCode: null }), settings)).toBe(1000);
    expect(taxRateFor(line({ taxCode: 'other' }), { taxRates: {} })).toBe(0);
    expect(taxRateFor(line(), undefined)).toBe(0);
    expect(taxRateFor(line({ taxBehavior: 'unspecified' }), settings)).toBe(0);
  });

  it('totals are the sums of the lines', () => {
    const { lines, totals } = priceOrder(
      [
        line({ unitAmount: 1000, quantity: 2 }),
        line({ unitAmount: 1190, taxBehavior: 'inclusive', taxCode: 'food' }),
        line({ unitAmount: 500, taxBehavior: 'unspecified' }),
      ],
      { taxRates: { standard: 2000, food: 1900 } },
    );
    expect(lines.map((l) => [l.subtotalAmount, l.taxAmount, l.totalAmount])).toEqual([
      [2000, 400, 2400],
      [1190, 190, 1190],
      [500, 0, 500],
    ]);
    expect(totals).toEqual({ currency: 'EUR', subtotalAmount: 3690, taxAmount: 590, totalAmount: 4090 });
  });

  it('one currency per order: a line in another is a 400 naming it', () => {
    const p = problemOf(() => priceOrder([line(), line(), line({ currency: 'USD' })], undefined));
    expect(p.getStatus()).toBe(400);
    expect(p.errors).toEqual([{ path: 'lines.2.productId', message: expect.stringContaining('USD') }]);
  });
});
