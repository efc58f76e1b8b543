/**
 * The static EUR rates (see the event types and EUR rates in services/ingest/README.md), repeated here on purpose: the generator must compute
 * total_value_base independently of ingest, so a wrong rate in ingest cannot hide itself.
 */
export const EUR_RATES: Readonly<Record<string, number>> = {
  EUR: 1.0, USD: 0.92, GBP: 1.17, CZK: 0.041, PLN: 0.23, RON: 0.2, HUF: 0.0026, UAH: 0.024,
  CHF: 1.05, DKK: 0.134, SEK: 0.088, NOK: 0.086, BGN: 0.51, HRK: 0.133, RSD: 0.0085,
};
