import t from 'tap';
import { pino } from 'pino';
import { generateEvents } from '@chatlytics/testkit';
import { createChdbEngine, runMigrations } from '../src/index.js';
import { daysToRepair, repairDays, verifyAggregates } from '../src/verify.js';
import { repairTokenIds } from '../src/repair-token-ids.js';
import { NEVER_FAIL, failingAt, insertEvents, tempDataDir } from './helpers.js';

/**
 * verify finds what an aggregate lost or gained against `events`, and the token ids that break
 * the rule; a repair of the days it names makes verify find nothing, and leaves every day that
 * was right as it was.
 */
const dir = tempDataDir(t);
const engine = await createChdbEngine({ path: dir, database: 'verify', log: pino({ level: 'silent' }) });
t.teardown(() => engine.close());
await runMigrations(engine);
const NOW = Date.UTC(2026, 5, 20, 12);
// Clicks in the chat name a product (chat_clicks holds those), a number as often as a text.
const events = generateEvents({ seed: 56, now: NOW, chatbotId: 'bot-v', otherChatbotIds: ['bot-w'], users: 60 })
  .map((e, i) => (e.event === 'click_through' ? { ...e, data: JSON.stringify({ ...JSON.parse(e.data), item_id: i % 2 ? `sku-${i % 7}` : i % 7 }) } : e));
await insertEvents(engine, events);

const snapshot = () => engine.query('SELECT chatbot_id, hour, event, popup_version, open_way, sum(events) AS n FROM event_hour_counts GROUP BY ALL ORDER BY ALL');

t.test('a store written through the views: nothing to report', async (t) => {
  t.same(await verifyAggregates(engine), []);
});

t.test('every kind of loss is found, by its chatbot and day; a repair of those days restores the rest', async (t) => {
  const before = await snapshot();
  // The day with the most of bot-v's visitors and purchases.
  const [{ day }] = await engine.query<{ day: string }>("SELECT toString(toDate(received_at)) AS day FROM events WHERE chatbot_id = 'bot-v' AND event IN ('visitor', 'purchase') AND NOT is_bot GROUP BY day ORDER BY uniqExact(event) DESC, count() DESC LIMIT 1");
  const range = `chatbot_id = 'bot-v' AND toDate(%s) = '${day}'`;
  const cmd = (sql: string) => engine.command(`${sql} SETTINGS mutations_sync = 2`);
  await cmd(`ALTER TABLE event_hour_counts DELETE WHERE ${range.replace('%s', 'hour')}`);
  await cmd(`ALTER TABLE token_hour_sets DELETE WHERE ${range.replace('%s', 'hour')} AND kind = 'visitor'`);
  await cmd(`ALTER TABLE token_day_sets DELETE WHERE ${range.replace('%s', 'day')} AND kind = 'visitor'`);
  await cmd(`ALTER TABLE purchases DELETE WHERE ${range.replace('%s', 'received_at')}`);
  await cmd(`ALTER TABLE chat_clicks UPDATE item_id = 'another' WHERE ${range.replace('%s', 'received_at')}`);
  // A row counted twice: an hour's count one too high.
  await engine.insert('event_hour_counts', [{ chatbot_id: 'bot-w', hour: '2026-06-19 10:00:00', event: 'visitor', popup_version: '', open_way: '', events: 1 }]);

  const found = await verifyAggregates(engine);
  const checks = new Set(found.map((d) => d.check));
  for (const check of ['event_hour_counts', 'token_hour_sets', 'token_day_sets', 'purchases', 'chat_clicks']) t.ok(checks.has(check), `${check} found`);
  t.ok(found.every((d) => (d.chatbot_id === 'bot-v' && d.day === day) || (d.chatbot_id === 'bot-w' && d.day === '2026-06-19')), 'each difference where it was made');
  const days = daysToRepair(found);
  t.same(days.map((d) => `${d.chatbotId} ${d.day}`).sort(), [`bot-v ${day}`, 'bot-w 2026-06-19'].sort());

  const busy = await repairDays(engine, days);
  t.same(busy.busy.map((d) => d.chatbotId), ['bot-v'], 'bot-v\'s rows were stored in the last minutes: a repair could race their inserts, so it waits');
  t.same(busy.repaired.map((d) => d.chatbotId), ['bot-w'], 'bot-w\'s day has no new rows: repaired');
  const repaired = await repairDays(engine, busy.busy, 0);
  t.equal(repaired.repaired.length, 1, 'without the wait (nothing else writes)');
  t.same(await verifyAggregates(engine), [], 'nothing left to report');
  t.same(await snapshot(), before, 'the counts as the views had written them');
});

t.test('token ids against the rule: a token with two ids, an id for two tokens, rows without one', async (t) => {
  await engine.command("ALTER TABLE events UPDATE token_id = token_id + 1 WHERE chatbot_id = 'bot-w' AND NOT is_bot AND event = 'visitor' AND toMinute(received_at) % 2 = 0 SETTINGS mutations_sync = 2");
  const found = await verifyAggregates(engine, { chatbotId: 'bot-w' });
  const checks = new Set(found.map((d) => d.check));
  for (const check of ['token_has_several_ids', 'id_names_several_tokens', 'token_id_not_in_token_ids']) t.ok(checks.has(check), `${check} found`);
  t.same(await verifyAggregates(engine, { chatbotId: 'bot-v' }), [], 'another chatbot: nothing');

  const visitors = () => engine.query("SELECT uniqExact(token) AS tokens, uniqExact(token_id) AS ids FROM events WHERE chatbot_id = 'bot-w' AND NOT is_bot");
  // An order per token, stored with the id the consumer would have found in token_ids (migration 0200).
  const orderIds = "SELECT o.order_id AS order_id, toString(o.token_id) AS stored, toString(ids.token_id) AS current FROM orders AS o "
    + "JOIN (SELECT token, min(token_id) AS token_id FROM token_ids WHERE chatbot_id = 'bot-w' GROUP BY token) AS ids ON ids.token = o.token WHERE o.chatbot_id = 'bot-w' ORDER BY order_id";
  await engine.command("INSERT INTO orders (chatbot_id, order_id, token, token_id, placed_at, status, version) SELECT 'bot-w', concat('O-', token), token, min(token_id), now64(3), 'paid', 1 FROM token_ids WHERE chatbot_id = 'bot-w' GROUP BY token");
  const before = await engine.query<{ stored: string; current: string }>(orderIds);
  // And a token given a second, smaller id after its order was stored (as two writers racing
  // would): the smaller one is the token's id from now on, so its order's id must change.
  const [{ token: raced }] = await engine.query<{ token: string }>("SELECT token FROM token_ids WHERE chatbot_id = 'bot-w' ORDER BY token LIMIT 1");
  await engine.insert('token_ids', [{ chatbot_id: 'bot-w', token: raced, token_id: '5' }]);
  const repair = await repairTokenIds(engine, 'bot-w');
  t.ok(repair.tokens > 0 && repair.days.length > 0, `${repair.tokens} tokens renumbered, ${repair.days.length} days to recompute`);
  await repairDays(engine, repair.days, 0);
  t.same(await verifyAggregates(engine), [], 'after the repair and its days: nothing to report');
  const [{ tokens, ids }] = await visitors();
  t.equal(ids, tokens, 'one id per token, one token per id');
  const after = await engine.query<{ stored: string; current: string }>(orderIds);
  t.equal(after.length, before.length);
  t.same(after.filter((o, i) => o.stored !== before[i].stored).map((o) => o.stored), ['5'], 'the raced token\'s order carries its new id');
  t.ok(after.every((o) => o.stored === o.current), 'every order carries its token\'s id as it is now');
  t.same(await repairTokenIds(engine, 'bot-w'), { tokens: 0, days: [] }, 'a second repair finds nothing');
});

t.test('a repair failed half-way, then verify and repair again: nothing left to report', async (t) => {
  const [{ day }] = await engine.query<{ day: string }>("SELECT toString(toDate(received_at)) AS day FROM events WHERE chatbot_id = 'bot-v' AND NOT is_bot GROUP BY day ORDER BY count() DESC LIMIT 1");
  const lose = () => engine.command(`ALTER TABLE token_hour_sets DELETE WHERE chatbot_id = 'bot-v' AND toDate(hour) = '${day}' SETTINGS mutations_sync = 2`);
  const verify = () => verifyAggregates(engine, { chatbotId: 'bot-v' });
  const clean = failingAt(engine, NEVER_FAIL, 'before');
  await lose();
  await repairDays(clean.engine, [{ chatbotId: 'bot-v', day }], 0);
  const statements = clean.calls();
  t.same(await verify(), [], `a repair of a day: ${statements} statements`);
  // The first statement, the middle one (the day's rows deleted, none recomputed yet: the first
  // INSERT), the last, and after the last (its answer lost). Every statement would be 2 minutes:
  // from the third repair on, chdb takes seconds per mutation here.
  const middle = Math.floor(statements / 2);
  const failures = [[0, 'before'], [middle, 'before'], [statements - 1, 'before'], [statements - 1, 'after']] as const;
  for (const [at, mode] of failures) {
    await lose();
    await t.rejects(repairDays(failingAt(engine, at, mode).engine, [{ chatbotId: 'bot-v', day }], 0), { message: /injected/ });
    await repairDays(engine, daysToRepair(await verify()), 0);
    t.same(await verify(), [], `failed ${mode} statement ${at}, then found and repaired again: nothing to report`);
  }
});
