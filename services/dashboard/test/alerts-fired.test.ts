import t from 'tap';
import { alertTransitions } from '@chatlytics/postgres';
import { databaseVariants } from '@chatlytics/postgres/testing';
import { firedAlertsOf } from '../src/alerts/fired.js';
import { createAlertRepository } from '../src/alerts/repository.js';
import { TEST_SCRYPT_COST } from '../src/auth/passwords.js';
import { importFixture } from '../src/fixtures/import.js';
import { IDS, NOW, testFixture } from './fixture.js';

/**
 * The weekly digest's "alerts that fired" as the dashboard wires it by default: the `firing`
 * transitions of the chatbot's alerts inside the digest's window, oldest first; `resolved`
 * transitions, other chatbots' alerts and firings outside the window are not listed.
 */
const at = (minutes: number) => new Date(NOW.getTime() + minutes * 60_000);

for (const variant of databaseVariants()) {
  t.test(`the digest's fired alerts come from the alerts' transitions (${variant.name})`, { skip: variant.skip }, async (t) => {
    const tdb = await variant.open();
    t.teardown(() => tdb.destroy());
    const { db } = tdb.postgres;
    await importFixture(db, testFixture(), { passwordCost: TEST_SCRYPT_COST });
    const alerts = createAlertRepository({ db });
    const base = { threshold: null, windowMinutes: 60, email: false, webhookUrl: null, secret: 'whsec_test' };
    const silence = await alerts.create(IDS.alpha, { ...base, kind: 'silence' });
    const dislikes = await alerts.create(IDS.alpha, { ...base, kind: 'dislike_share', threshold: 30 });
    const elsewhere = await alerts.create(IDS.beta, { ...base, kind: 'silence' });
    await db.insert(alertTransitions).values([
      { alertId: silence.id, state: 'firing', value: 0, at: at(-120) },
      { alertId: silence.id, state: 'firing', value: 0, at: at(10) },
      { alertId: silence.id, state: 'resolved', value: 4, at: at(20) },
      { alertId: dislikes.id, state: 'firing', value: 41.18, at: at(5) },
      { alertId: elsewhere.id, state: 'firing', value: 0, at: at(15) },
    ]);

    const fired = await firedAlertsOf(alerts)(IDS.alpha, at(0), at(60));
    t.same(fired.map((a) => [a.name, a.firedAt.toISOString()]), [
      ['Dislike share', at(5).toISOString()],
      ['Silence', at(10).toISOString()],
    ], "this chatbot's firings in the window, oldest first; no resolved, no other chatbot's");
    t.match(fired[0].detail, /41\.18 % of reactions over 60 minutes \(threshold 30 %\)/);
    t.match(fired[1].detail, /no tracking event over 60 minutes/);
    t.same(await firedAlertsOf(alerts)(IDS.alpha, at(30), at(60)), [], 'none in a window without firings');
  });
}
