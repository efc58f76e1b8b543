/** The one money formatter of the pages and the digest (html/money.ts): EUR amounts in a chatbot's display currency. */
import t from 'tap';
import { EUR_RATES } from '@chatlytics/events';
import { DISPLAY_CURRENCIES, conversionNote, fromEur, isDisplayCurrency, moneyIn } from '../src/html/money.js';

t.test('the currencies offered are exactly those of the ingest\'s rate table', async (t) => {
  t.same([...DISPLAY_CURRENCIES].sort(), Object.keys(EUR_RATES).sort());
  t.ok(isDisplayCurrency('SEK'));
  t.notOk(isDisplayCurrency('XYZ'));
  t.notOk(isDisplayCurrency('sek'), 'codes are upper-case, as stored');
  t.notOk(isDisplayCurrency('toString'), 'an inherited property is no currency');
});

t.test('an amount is the EUR value divided by the currency\'s rate to EUR', async (t) => {
  t.equal(fromEur(88, 'SEK'), 88 / 0.088);
  t.equal(fromEur(88, 'EUR'), 88);
  t.equal(fromEur(117, 'GBP'), 117 / 1.17);
  t.equal(fromEur(88, 'XYZ'), 88, 'a code without a rate shows EUR');
});

t.test('moneyIn writes the converted amount with the currency\'s symbol (a no-break space after a letter symbol)', async (t) => {
  t.equal(moneyIn('EUR')(1234.5), '€1,234.50');
  t.equal(moneyIn('SEK')(88), 'kr\u00a01,000.00', '88 EUR at 0.088 EUR per krona');
  t.equal(moneyIn('SEK')(-8.8), '-kr\u00a0100.00');
  t.equal(moneyIn('USD')(92), '$100.00');
  t.equal(moneyIn('HUF')(2.6), 'Ft\u00a01,000', 'the forint has no minor unit shown');
  t.equal(moneyIn('PLN')(0), 'zł\u00a00.00');
  t.equal(moneyIn('XYZ')(5), '€5.00', 'a code without a rate shows EUR');
  for (const code of DISPLAY_CURRENCIES) t.match(moneyIn(code)(100), /\d/, `${code} formats`);
});

t.test('the small print names the currency and the rate, and nothing for EUR', async (t) => {
  t.equal(conversionNote('EUR'), '');
  t.equal(conversionNote('SEK'), 'Amounts in SEK, converted from EUR at fixed rates (1 SEK = 0.088 EUR).');
  t.equal(conversionNote('XYZ'), '');
});
