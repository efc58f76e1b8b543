import t from 'tap';
import { databaseVariants } from '@chatlytics/postgres/testing';
import { buildTestApp, lastErrorCode } from './helper.js';
import { IDS, KEYS } from './fixture.js';

/**
 * A chatbot's display currency through the API (issue 58): EUR by default, any code of the
 * ingest's rate table accepted, anything else refused with the validation error; reads show it.
 */
for (const variant of databaseVariants()) {
  t.test(`chatbot display currency (${variant.name})`, { skip: variant.skip }, async (t) => {
    const { app, logs } = await buildTestApp(t, variant);
    const ann = { authorization: `Bearer ${KEYS.a}` };
    const api = (method: 'GET' | 'PATCH', url: string, payload?: object) =>
      app.inject({ method, url: `/api/dashboard${url}`, headers: ann, payload });

    t.test('EUR by default, in the list and the detail', async (t) => {
      t.equal((await api('GET', `/chatbots/${IDS.alpha}`)).json().data.chatbot.displayCurrency, 'EUR');
      const list = (await api('GET', '/chatbots')).json().data.chatbots as { displayCurrency: string }[];
      t.ok(list.length > 0);
      t.ok(list.every((c) => c.displayCurrency === 'EUR'));
    });

    t.test('a code of the rate table is kept; other fields keep theirs', async (t) => {
      const res = await api('PATCH', `/chatbots/${IDS.alpha}`, { displayCurrency: 'SEK' });
      t.equal(res.statusCode, 200);
      t.match(res.json().data.chatbot, { displayCurrency: 'SEK', maxPurchaseEur: 100_000 });
      t.equal((await api('GET', `/chatbots/${IDS.alpha}`)).json().data.chatbot.displayCurrency, 'SEK');
      const list = (await api('GET', '/chatbots')).json().data.chatbots as { id: string; displayCurrency: string }[];
      t.equal(list.find((c) => c.id === IDS.alpha)?.displayCurrency, 'SEK');
      t.equal((await api('PATCH', `/chatbots/${IDS.alpha}`, { maxPurchaseEur: 500 })).json().data.chatbot.displayCurrency, 'SEK', 'left out: kept');
      t.equal((await api('PATCH', `/chatbots/${IDS.alpha}`, { displayCurrency: 'EUR' })).json().data.chatbot.displayCurrency, 'EUR');
    });

    t.test('an unknown, lower-case or malformed code is refused: 422 DASHBOARD_006 on the field, nothing changed', async (t) => {
      await api('PATCH', `/chatbots/${IDS.alpha}`, { displayCurrency: 'NOK' });
      for (const displayCurrency of ['XYZ', 'sek', 'SEKK', '', 5, null]) {
        const res = await api('PATCH', `/chatbots/${IDS.alpha}`, { displayCurrency, maxPurchaseEur: 7 });
        t.equal(res.statusCode, 422, JSON.stringify(displayCurrency));
        t.equal(lastErrorCode(logs), 'DASHBOARD_006');
        t.match(res.json(), { success: false, message: 'The given data was invalid.', errors: { displayCurrency: Array } }, 'the message is on the field');
        t.ok(res.json().errors.displayCurrency.includes('The displayCurrency field is invalid.'));
      }
      t.match((await api('GET', `/chatbots/${IDS.alpha}`)).json().data.chatbot, { displayCurrency: 'NOK', maxPurchaseEur: 500 });
    });
  });
}
