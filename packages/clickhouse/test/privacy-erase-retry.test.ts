import t from 'tap';
import { pino } from 'pino';
import { generateEvents } from '@chatlytics/testkit';
import { createChdbEngine, eraseTokenRows, runMigrations, verifyAggregates, type ClickHouseEngine } from '../src/index.js';
import { NEVER_FAIL, eachFailurePoint, failingAt, insertEvents, tempDataDir } from './helpers.js';

/**
 * An erasure that fails at any one of its statements, then runs again (the erasure job's retry),
 * converges: no row names the token, and `cli verify`'s check finds no difference. Each
 * statement is failed before it runs (it never reached the server; failing after the one before
 * it is the same), and the last after it ran (its answer was lost). Every token erased has rows
 * in two months, so a failure also falls between two months of the month-by-month mutations
 * (privacy/erase_token.sql). The retention run's twin: privacy-retention-retry.test.ts.
 */
const dir = tempDataDir(t);
const engine = await createChdbEngine({ path: dir, database: 'privacy_retry', log: pino({ level: 'silent' }) });
t.teardown(() => engine.close());
await runMigrations(engine);

const count = async (sql: string, params: Record<string, unknown>) => Number((await engine.query<{ n: string }>(sql, params))[0].n);

// 2026-03-10: 60 days of events span January to March.
const NOW = Date.UTC(2026, 2, 10, 12);

t.test('an erasure failed at any statement, then run again, leaves nothing of the token and the aggregates exact', async (t) => {
  const BOT = 'bot-erase';
  await insertEvents(engine, generateEvents({ seed: 6001, now: NOW, chatbotId: BOT, otherChatbotIds: ['bot-erase-other'], users: 200, spanDays: 60 }));
  // Tokens with rows in two months or more, the buyers with an order number first.
  const tokens = (await engine.query<{ token: string }>(
    `SELECT token FROM events WHERE chatbot_id = {b:String} AND NOT is_bot
     GROUP BY token HAVING uniqExact(toYYYYMM(received_at)) > 1
     ORDER BY countIf(event = 'purchase' AND order_num != '') > 0 DESC, countIf(event = 'convo_started') > 0 DESC, token`, { b: BOT })).map((r) => r.token);
  // The job's retry keeps its erasure id (the receipt's), as the dashboard's job does.
  const erase = (e: ClickHouseEngine, token: string) => eraseTokenRows(e, { chatbotId: BOT, token, erasureId: `retry-${tokens.indexOf(token)}` });

  // A clean erasure: how many commands one issues.
  const clean = failingAt(engine, NEVER_FAIL, 'before');
  await erase(clean.engine, tokens[0]!);
  const commands = clean.calls();
  t.ok(commands >= 15, `an erasure issues ${commands} commands`);
  t.ok(tokens.length >= 2 + commands, `${tokens.length} tokens with rows in two months: one per failure`);

  let next = 1;
  for (const [at, mode] of eachFailurePoint(commands)) {
    const token = tokens[next++]!;
    const broken = failingAt(engine, at, mode);
    await t.rejects(erase(broken.engine, token), { message: /injected/ }, `fails ${mode} command ${at}`);
    await erase(engine, token);
    const left = await count(
      'SELECT (SELECT count() FROM events WHERE chatbot_id = {b:String} AND token = {t:String}) + (SELECT count() FROM token_ids WHERE chatbot_id = {b:String} AND token = {t:String}) + (SELECT count() FROM orders WHERE token = {t:String}) AS n',
      { b: BOT, t: token });
    t.equal(left, 0, `failed ${mode} command ${at}, then run again: no row names the token`);
    t.same(await verifyAggregates(engine, { chatbotId: BOT }), [], `failed ${mode} command ${at}, then run again: the aggregates equal what events give`);
  }
});
