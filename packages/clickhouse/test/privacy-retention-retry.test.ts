import t from 'tap';
import { pino } from 'pino';
import { generateEvents } from '@chatlytics/testkit';
import { applyRetention, createChdbEngine, runMigrations, verifyAggregates, type ClickHouseEngine } from '../src/index.js';
import { NEVER_FAIL, eachFailurePoint, failingAt, insertEvents, tempDataDir } from './helpers.js';

/**
 * A retention run that fails at any one of its statements, then runs again (the loop's next
 * pass), converges: no raw row past the horizon is left, and `cli verify`'s check finds no
 * difference. Each statement is failed before it runs (failing after the one before it is the
 * same), and the last after it ran (its answer was lost). Every chatbot has rows past the
 * horizon in two months, so a failure also falls between two months of the month-by-month
 * mutations (privacy/retention_delete.sql). A file of its own:
 * each mutation rewrites a whole month of its table, so the erasure suite's rows would slow it.
 */
const dir = tempDataDir(t);
const engine = await createChdbEngine({ path: dir, database: 'retention_retry', log: pino({ level: 'silent' }) });
t.teardown(() => engine.close());
await runMigrations(engine);

const count = async (sql: string, params: Record<string, unknown>) => Number((await engine.query<{ n: string }>(sql, params))[0].n);

// 2026-03-10: 60 days of events span January to March.
const NOW = Date.UTC(2026, 2, 10, 12);

t.test('a retention run failed at any statement, then run again, leaves nothing past the horizon and verify content', async (t) => {
  const CUTOFF = Date.UTC(2026, 2, 1);
  const cutoffText = new Date(CUTOFF).toISOString().replace('T', ' ').slice(0, 23);
  const bots = Array.from({ length: 64 }, (_, i) => `bot-retain-${i}`);
  await insertEvents(engine, bots.flatMap((b, i) => generateEvents({ seed: 7000 + i, now: NOW, chatbotId: b, otherChatbotIds: [], users: 12, spanDays: 60 })));
  const older = (b: string) => count(
    `SELECT ${['events', 'event_copies', 'purchases', 'conversation_starts', 'chat_clicks', 'events_rejected']
      .map((table) => `(SELECT count() FROM ${table} WHERE chatbot_id = {b:String} AND received_at < {c:DateTime64(3, 'UTC')})`).join(' + ')}
      + (SELECT count() FROM order_first_purchases WHERE chatbot_id = {b:String} AND tupleElement(first, 'at') < {c:DateTime64(3, 'UTC')}) AS n`,
    { b, c: cutoffText });

  const clean = failingAt(engine, NEVER_FAIL, 'before');
  t.ok(await older(bots[0]!) > 0, 'rows past the horizon');
  await applyRetention(clean.engine, bots[0]!, CUTOFF);
  const commands = clean.calls();
  t.equal(await older(bots[0]!), 0, `a clean run (${commands} commands) leaves nothing past the horizon`);
  t.ok(bots.length >= 2 + commands, `${bots.length} chatbots: one per failure`);

  let next = 1;
  for (const [at, mode] of eachFailurePoint(commands)) {
    const bot = bots[next++]!;
    const [{ months }] = await engine.query<{ months: string }>(
      "SELECT uniqExact(toYYYYMM(received_at)) AS months FROM events WHERE chatbot_id = {b:String} AND received_at < {c:DateTime64(3, 'UTC')}", { b: bot, c: cutoffText });
    t.ok(Number(months) > 1, `${bot}: rows past the horizon in ${months} months`);
    await t.rejects(applyRetention(failingAt(engine, at, mode).engine, bot, CUTOFF), { message: /injected/ }, `fails ${mode} command ${at}`);
    await applyRetention(engine, bot, CUTOFF);
    t.equal(await older(bot), 0, `failed ${mode} command ${at}, then run again: nothing past the horizon`);
    t.same(await verifyAggregates(engine, { chatbotId: bot }), [], `failed ${mode} command ${at}, then run again: verify finds no difference`);
  }
});
