import t from 'tap';
import { and, eq, sql } from 'drizzle-orm';
import { pino } from 'pino';
import { alertTransitions, jobs, jobs as emailJobs } from '@chatlytics/postgres';
import { databaseVariants } from '@chatlytics/postgres/testing';
import { createAlertEvaluator } from '../src/alerts/evaluator.js';
import type { AlertFiguresReader } from '../src/alerts/figures.js';
import { ALERT_MAIL_JOB, createAlertRepository } from '../src/alerts/repository.js';
import type { AlertFigures } from '../src/alerts/rules.js';
import { signBody } from '../src/alerts/signature.js';
import { WEBHOOK_JOB, type WebhookPayload } from '../src/alerts/webhook-job.js';
import { TEST_SCRYPT_COST } from '../src/auth/passwords.js';
import { importFixture } from '../src/fixtures/import.js';
import { IDS, NOW, testFixture } from './fixture.js';

/**
 * The evaluator on a pinned clock with given figures: a state change is recorded once with its
 * notifications (webhook delivery signed with the alert's secret, one e-mail job per user of
 * the account) and never again while the state holds; two evaluators that decide the same
 * change at once record it once (the compare-and-set on the alert's state).
 */
const log = pino({ level: 'silent' });
const lockless = { exclusive: async <T>(_key: number, job: () => Promise<T>) => job() };

for (const variant of databaseVariants()) {
  t.test(`alert evaluator (${variant.name})`, { skip: variant.skip }, async (t) => {
    const tdb = await variant.open();
    t.teardown(() => tdb.destroy());
    const { db } = tdb.postgres;
    await importFixture(db, testFixture(), { passwordCost: TEST_SCRYPT_COST });
    const alerts = createAlertRepository({ db });
    const alert = await alerts.create(IDS.alpha, { kind: 'silence', threshold: null, windowMinutes: 5, email: true, webhookUrl: 'https://hooks.example.com/a', secret: 'whsec_test' });
    let clock = new Date(NOW);
    let events = 0;
    const asked: Date[] = [];
    const figures: AlertFiguresReader = async (a, now) => { asked.push(now); return { kind: 'silence', events } as AlertFigures; };
    const evaluator = (over: Partial<Parameters<typeof createAlertEvaluator>[0]> = {}) => createAlertEvaluator({
      alerts, figures, postgres: tdb.postgres, log, clock: () => clock, queueClock: () => clock, appUrl: 'https://app.example.com', intervalMs: 0, ...over,
    });
    const transitions = () => db.select().from(alertTransitions).where(eq(alertTransitions.alertId, alert.id)).orderBy(alertTransitions.at);
    const deliveries = async () => (await db.select().from(jobs).where(and(eq(jobs.kind, WEBHOOK_JOB), sql`${jobs.payload}->>'alertId' = ${alert.id}`)).orderBy(jobs.createdAt))
      .map((j) => j.payload as unknown as WebhookPayload);
    const mails = () => db.select().from(emailJobs).where(eq(emailJobs.kind, ALERT_MAIL_JOB)).orderBy(emailJobs.createdAt);

    t.test('ok → firing: one transition, one signed webhook, one e-mail per user of the account', async (t) => {
      const run = await evaluator().runOnce();
      t.same(run, { evaluated: 1, transitions: 1, failed: 0 });
      t.same(asked.at(-1), clock, 'figures asked at the pinned now');
      t.match(await transitions(), [{ state: 'firing', value: 0, at: clock }]);
      const [d] = await deliveries();
      t.equal(d.url, 'https://hooks.example.com/a');
      t.same(JSON.parse(d.body), {
        alert_id: alert.id, chatbot_id: IDS.alpha, kind: 'silence', state: 'firing', value: 0, threshold: null, window_minutes: 5, at: clock.toISOString(),
      });
      t.equal(d.signature, signBody('whsec_test', d.body));
      const jobs = await mails();
      t.same(jobs.map((j) => j.payload.email), ['ann@shop-a.test'], "account A's users only");
      t.match(jobs[0].payload, { state: 'firing', kind: 'silence', chatbotName: 'Alpha', alertsUrl: `https://app.example.com/app/${IDS.alpha}/alerts` });
      t.equal((await alerts.find(IDS.alpha, alert.id))?.state, 'firing');
    });

    t.test('no notification again while the state holds', async (t) => {
      for (let i = 0; i < 3; i++) {
        clock = new Date(clock.getTime() + 60_000);
        t.same(await evaluator().runOnce(), { evaluated: 1, transitions: 0, failed: 0 });
      }
      t.equal((await transitions()).length, 1);
      t.equal((await deliveries()).length, 1);
      t.equal((await mails()).length, 1);
      t.same((await alerts.find(IDS.alpha, alert.id))?.lastEvaluatedAt, clock, 'the evaluation is recorded');
    });

    t.test('firing → ok is notified as resolved, once', async (t) => {
      events = 2;
      clock = new Date(clock.getTime() + 60_000);
      t.same(await evaluator().runOnce(), { evaluated: 1, transitions: 1, failed: 0 });
      t.same(await evaluator().runOnce(), { evaluated: 1, transitions: 0, failed: 0 });
      t.same((await transitions()).map((r) => [r.state, r.value]), [['firing', 0], ['resolved', 2]]);
      t.same((await deliveries()).map((d) => JSON.parse(d.body).state), ['firing', 'resolved']);
      t.same((await mails()).map((j) => j.payload.state), ['firing', 'resolved']);
      const shown = await alerts.recentTransitions([alert.id]);
      t.same(shown.get(alert.id)?.map((r) => r.state), ['resolved', 'firing'], 'newest first');
    });

    t.test('two evaluators deciding the same change at once record and notify it once', async (t) => {
      events = 0;
      clock = new Date(clock.getTime() + 60_000);
      // Both read the alert as `ok` before either records anything: the figures wait for each other.
      let release!: () => void;
      const bothAsked = new Promise<void>((r) => { release = r; });
      let waiting = 0;
      const racing: AlertFiguresReader = async () => {
        if (++waiting === 2) release();
        await bothAsked;
        return { kind: 'silence', events: 0 };
      };
      const [a, b] = await Promise.all([evaluator({ figures: racing, postgres: lockless }).runOnce(), evaluator({ figures: racing, postgres: lockless }).runOnce()]);
      t.equal(a!.transitions + b!.transitions, 1, 'one of them recorded the transition');
      t.same((await transitions()).map((r) => r.state), ['firing', 'resolved', 'firing']);
      t.equal((await deliveries()).length, 3);
      t.equal((await mails()).length, 3);
    });

    t.test('the advisory lock: a second evaluator skips the run while one holds it', async (t) => {
      let release!: () => void;
      const held = new Promise<void>((r) => { release = r; });
      const slow: AlertFiguresReader = async () => { await held; return { kind: 'silence', events: 0 }; };
      const first = evaluator({ figures: slow }).runOnce();
      await new Promise((r) => setTimeout(r, 100));
      t.equal(await evaluator().runOnce(), undefined, 'skipped');
      release();
      t.same(await first, { evaluated: 1, transitions: 0, failed: 0 });
    });

    t.test('figures that cannot be read keep the state', async (t) => {
      const run = await evaluator({ figures: async () => { throw new Error('ClickHouse down'); } }).runOnce();
      t.same(run, { evaluated: 0, transitions: 0, failed: 1 });
      t.equal((await alerts.find(IDS.alpha, alert.id))?.state, 'firing');
    });

    t.test('started, it runs at once and then every interval; stopped, it waits for its run and runs no more', async (t) => {
      let runs = 0;
      let inFlight = false;
      const counting: AlertFiguresReader = async () => {
        inFlight = true;
        await new Promise((r) => setTimeout(r, 20));
        runs++;
        inFlight = false;
        return { kind: 'silence', events: 0 };
      };
      const loop = evaluator({ figures: counting, intervalMs: 100 });
      loop.start();
      const deadline = Date.now() + 10_000;
      while (runs < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      t.ok(runs >= 3, `${runs} runs`);
      await loop.stop();
      t.notOk(inFlight, 'stop() waited for the run in hand');
      const after = runs;
      await new Promise((r) => setTimeout(r, 300));
      t.equal(runs, after, 'no run after stop()');
    });

    t.test('a deleted alert takes its transitions and pending deliveries with it', async (t) => {
      t.ok(await alerts.delete(IDS.alpha, alert.id));
      t.equal((await transitions()).length, 0);
      t.equal((await deliveries()).length, 0);
    });
  });
}
