/** The base currency every purchase value is converted to (see the event types and EUR rates in services/ingest/README.md). */
export const BASE_CURRENCY = 'EUR';

/** Used for an item without its own currency when the event has no `data.currency` either (see the stored-event rules in services/ingest/README.md). */
export const DEFAULT_CURRENCY = BASE_CURRENCY;

/**
 * Static conversion rates to EUR (see the event types and EUR rates in services/ingest/README.md): 1 unit of the currency = rate EUR.
 * Frozen: the rates are part of the stored meaning of `total_value_base`; changing one
 * silently would make old and new rows disagree, so a change must be a deliberate release.
 */
export const EUR_RATES: Readonly<Record<string, number>> = Object.freeze({
  EUR: 1.0,
  USD: 0.92,
  GBP: 1.17,
  CZK: 0.041,
  PLN: 0.23,
  RON: 0.2,
  HUF: 0.0026,
  UAH: 0.024,
  CHF: 1.05,
  DKK: 0.134,
  SEK: 0.088,
  NOK: 0.086,
  BGN: 0.51,
  HRK: 0.133,
  RSD: 0.0085,
});

/** Rate to EUR of an upper-case currency code, or undefined when it is not in the table. */
export function eurRate(currency: string): number | undefined {
  return Object.hasOwn(EUR_RATES, currency) ? EUR_RATES[currency] : undefined;
}

/**
 * Currency codes are compared upper-cased: `usd` and `USD` are the same currency. ASCII only:
 * a full Unicode upper-casing can lengthen a code ('ß' → 'SS') past the 3-character column.
 */
export function normalizeCurrency(code: string): string {
  return code.trim().replace(/[a-z]+/g, (letters) => letters.toUpperCase());
}
