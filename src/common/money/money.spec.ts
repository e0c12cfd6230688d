import { isCurrency, minorDigits, toMajorUnits, toMinorUnits } from './money';

describe('money', () => {
  it('knows ISO 4217 codes, upper case only', () => {
    expect(isCurrency('USD')).toBe(true);
    expect(isCurrency('JPY')).toBe(true);
    expect(isCurrency('usd')).toBe(false);
    expect(isCurrency('XYZ')).toBe(false);
    expect(isCurrency('US')).toBe(false);
  });

  it('reads the minor units of each currency', () => {
    expect([minorDigits('USD'), minorDigits('JPY'), minorDigits('KWD')]).toEqual([2, 0, 3]);
  });

  it('turns major-unit prices into minor units without binary rounding', () => {
    expect(toMinorUnits(19.99, 'USD')).toBe(1999);
    expect(toMinorUnits(0.29, 'USD')).toBe(29);
    expect(toMinorUnits(1.1, 'USD')).toBe(110);
    expect(toMinorUnits(500, 'JPY')).toBe(500);
    expect(toMinorUnits(1.234, 'KWD')).toBe(1234);
    expect(toMinorUnits(0, 'USD')).toBe(0);
  });

  it('refuses a price with more decimals than the currency has', () => {
    expect(toMinorUnits(12.345, 'USD')).toBeNull();
    expect(toMinorUnits(1.5, 'JPY')).toBeNull();
    expect(toMinorUnits(Number.NaN, 'USD')).toBeNull();
    expect(toMinorUnits(1e300, 'USD')).toBeNull();
  });

  it('shows minor units as a major-unit number', () => {
    expect(toMajorUnits(1999, 'USD')).toBe(19.99);
    expect(toMajorUnits(500, 'JPY')).toBe(500);
    expect(toMajorUnits(1234, 'KWD')).toBe(1.234);
    expect(toMajorUnits(5, 'USD')).toBe(0.05);
  });
});
