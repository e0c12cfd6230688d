import { trimTrailing } from '../input/trim-trailing';

/**
 * Money: an integer amount in the currency's minor units (`unitAmount`) and an ISO
 * 4217 code, upper case. v1 also speaks `price`, the same amount in major units. The number of
 * minor units per major one comes from the ICU data Node ships (2 for USD, 0 for JPY, 3 for KWD).
 */

const CURRENCIES = new Set(Intl.supportedValuesOf('currency'));

/** Every code `isCurrency` takes, in order: the document's enum of currency fields. */
export const CURRENCY_CODES: readonly string[] = [...CURRENCIES].filter((c) => /^[A-Z]{3}$/.test(c)).sort();

/** Whether `code` is an ISO 4217 currency Node knows (upper case only). */
export function isCurrency(code: string): boolean {
  return /^[A-Z]{3}$/.test(code) && CURRENCIES.has(code);
}

const exponents = new Map<string, number>();

/** Digits after the decimal point of the currency's major unit. */
export function minorDigits(currency: string): number {
  let digits = exponents.get(currency);
  if (digits === undefined) {
    digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
    exponents.set(currency, digits);
  }
  return digits;
}

/**
 * A major-unit price as minor units, or null when it has more decimals than the currency has
 * (12.345 USD is not an amount). Decimal strings avoid binary rounding: 0.29 USD is 29 cents.
 */
export function toMinorUnits(price: number, currency: string): number | null {
  if (!Number.isFinite(price) || Math.abs(price) >= 1e15) return null;
  const digits = minorDigits(currency);
  const [whole, fraction = ''] = trimTrailing(Math.abs(price).toFixed(10), '0').split('.');
  if (fraction.length > digits) return null;
  const minor = Number(whole) * 10 ** digits + Number(fraction.padEnd(digits, '0') || '0');
  return Number.isSafeInteger(minor) ? Math.sign(price) * minor || 0 : null;
}

/** Minor units as the major-unit number v1 shows (1999 USD → 19.99). */
export function toMajorUnits(unitAmount: number, currency: string): number {
  return Number((unitAmount / 10 ** minorDigits(currency)).toFixed(minorDigits(currency)));
}
