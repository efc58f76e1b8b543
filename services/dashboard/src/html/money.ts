import { BASE_CURRENCY, EUR_RATES, eurRate } from '@chatlytics/events';

/**
 * Money as the app pages and the weekly digest show it (issue 58): every amount is stored and
 * answered by the API in EUR; a chatbot's display currency only changes how it is written, by
 * the same static rates the ingest converts purchases with (@chatlytics/events EUR_RATES), so a
 * shown figure and the API's figure always differ by exactly that one rate.
 */

/** The currencies a chatbot can be shown in: those with a rate in the ingest's table. */
export const DISPLAY_CURRENCIES: readonly string[] = Object.freeze(Object.keys(EUR_RATES));

export const DEFAULT_DISPLAY_CURRENCY = BASE_CURRENCY;

export const isDisplayCurrency = (code: string): boolean => eurRate(code) !== undefined;

/**
 * A stored code the table no longer has (a rate removed in a later release) is shown in EUR:
 * an amount in a currency without a rate would be a guess.
 */
export const shownCurrency = (code: string): string => (isDisplayCurrency(code) ? code : BASE_CURRENCY);

/** An amount in EUR in the currency: EUR value / (1 unit of the currency in EUR). Not rounded. */
export function fromEur(eur: number, currency: string): number {
  return eur / eurRate(shownCurrency(currency))!;
}

const formats = new Map<string, Intl.NumberFormat>();

/** The narrow symbol (`kr`, `zł`, `€`): the page says once which currency it is (conversionNote). */
function formatOf(currency: string): Intl.NumberFormat {
  let format = formats.get(currency);
  if (!format) {
    format = new Intl.NumberFormat('en', { style: 'currency', currency, currencyDisplay: 'narrowSymbol' });
    formats.set(currency, format);
  }
  return format;
}

/** Writes an amount given in EUR. */
export type Money = (eur: number) => string;

/**
 * The one money formatter of the pages and the digest: amounts in EUR written in `currency`
 * (a chatbot's display currency; EUR for sums across chatbots of different currencies).
 */
export function moneyIn(currency: string): Money {
  const code = shownCurrency(currency);
  const format = formatOf(code);
  return (eur) => format.format(fromEur(eur, code));
}

/** The small print wherever converted amounts are shown; empty for EUR, which is not converted. */
export function conversionNote(currency: string): string {
  const code = shownCurrency(currency);
  return code === BASE_CURRENCY ? '' : `Amounts in ${code}, converted from EUR at fixed rates (1 ${code} = ${EUR_RATES[code]} EUR).`;
}
