import t from 'tap';
import { pino } from 'pino';
import { createChdbEngine, runMigrations } from '../src/index.js';
import { daysToRepair, repairDays, verifyAggregates } from '../src/verify.js';
import { insertEvents, tempDataDir } from './helpers.js';

/**
 * order_chats (migration 0230): per shop order, its token's latest first-copy chat before it and
 * within 30 days, whichever of the order and the chat is stored last; equal to what verify
 * computes from orders and conversation_starts, whatever the order of the inserts; a changed
 * row is found and repaired; an erasure's and a retention run's statements keep it equal.
 */
const dir = tempDataDir(t);
const engine = await createChdbEngine({ path: dir, database: 'order_chats', log: pino({ level: 'silent' }) });
t.teardown(() => engine.close());
await runMigrations(engine);

const DAY = 86_400_000;
// Months back: verify's default scope ends a day after now.
const T0 = Date.UTC(2026, 5, 1);
const at = (ms: number) => new Date(ms).toISOString().replace('T', ' ').slice(0, 23);
let n = 0;
const uuid = () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
/** A tracked event as the writer stores it (its token numbered on its first row). */
const ev = (bot: string, token: string, event: string, ms: number, eventId = uuid()) => ({
  event_id: eventId, event, token, chatbot_id: bot, received_at: at(ms), ab_test: false, ab_group: null, popup_version: '', open_way: '',
  order_num: '', currency: '', total_value: 0, total_value_base: null, items: [], url: 'https://shop.example/p', user_agent: 'Mozilla/5.0',
  client_hash: '', data: JSON.stringify({ chatbot_id: bot }), is_bot: false, holdout: false,
});
const chats = (rows: object[]) => insertEvents(engine, rows);
const idOf = async (bot: string, token: string) => (await engine.query<{ id: string }>(
  'SELECT toString(min(token_id)) AS id FROM token_ids WHERE chatbot_id = {b:String} AND token = {t:String}', { b: bot, t: token }))[0]?.id ?? '0';
const order = async (bot: string, id: string, token: string, ms: number, version = 1) => engine.insert('orders', [{
  chatbot_id: bot, order_id: id, token, token_id: await idOf(bot, token), placed_at: at(ms), currency: 'EUR',
  item_ids: [], item_quantities: [], item_values: [], status: 'paid', refund_ids: [], refund_ats: [], refund_amounts: [],
  gross_value: 10, refunded_value: 0, net_value: 10, net_value_base: null, source: 'api', received_at: at(ms), version: String(version),
}]);
const latest = async () => Object.fromEntries((await engine.query<{ k: string; c: string }>(
  "SELECT concat(o.chatbot_id, '/', o.order_id, '/', t.token) AS k, toString(max(o.chat_at)) AS c FROM order_chats AS o "
  + 'JOIN token_ids AS t ON t.chatbot_id = o.chatbot_id AND t.token_id = o.token_id GROUP BY o.chatbot_id, o.order_id, o.placed_at, t.token ORDER BY k',
)).map((r) => [r.k, r.c]));
/** order_chats' differences (the events of this file feed the other checks as the views do). */
const differences = async () => (await verifyAggregates(engine)).filter((d) => d.check === 'order_chats');

t.test('stored from both sides: the latest chat before the order, within 30 days, first copies only', async (t) => {
  // Chats first, then the orders (order_chats_orders_mv). A retried beacon's copy (same event id,
  // later) is not another start; another chatbot's chat is not this one's.
  const retried = uuid();
  await chats([ev('b1', 'ta', 'convo_started', T0), ev('b1', 'ta', 'convo_started', T0 + 5 * DAY, retried),
    ev('b1', 'ta', 'convo_started', T0 + 9 * DAY, retried), ev('b2', 'ta', 'convo_started', T0 + 6 * DAY), ev('b1', 'tb', 'visitor', T0)]);
  await order('b1', 'o1', 'ta', T0 + 7 * DAY);
  await order('b1', 'o2', 'ta', T0 + 40 * DAY);
  await order('b1', 'o3', 'tb', T0 + 7 * DAY);
  // An order first, its token's chats after it (order_chats_chats_mv): one before it, one after.
  await chats([ev('b1', 'tc', 'visitor', T0 + 18 * DAY)]);
  await order('b1', 'o4', 'tc', T0 + 20 * DAY);
  await chats([ev('b1', 'tc', 'convo_started', T0 + 19 * DAY), ev('b1', 'tc', 'convo_started', T0 + 21 * DAY)]);
  // 30 days before an order to the millisecond, and a millisecond more.
  await chats([ev('b1', 'td', 'visitor', T0)]);
  await order('b1', 'o5', 'td', T0 + 50 * DAY);
  await chats([ev('b1', 'td', 'convo_started', T0 + 20 * DAY), ev('b1', 'td', 'convo_started', T0 + 20 * DAY - 1)]);
  t.same(await latest(), {
    'b1/o1/ta': at(T0 + 5 * DAY),
    'b1/o4/tc': at(T0 + 19 * DAY),
    'b1/o5/td': at(T0 + 20 * DAY),
  }, 'o2: its chats are more than 30 days before it; o3: its token never chatted');
  t.same(await differences(), [], 'verify computes the same');
});

t.test('a later report with another token keys another row', async (t) => {
  await chats([ev('b1', 'te', 'convo_started', T0 + 6 * DAY)]);
  await order('b1', 'o1', 'te', T0 + 7 * DAY, 2);
  const rows = await latest();
  t.equal(rows['b1/o1/ta'], at(T0 + 5 * DAY));
  t.equal(rows['b1/o1/te'], at(T0 + 6 * DAY));
  t.same(await differences(), []);
});

t.test('a row lost or changed is found on its order\'s day and repaired', async (t) => {
  await engine.command("ALTER TABLE order_chats DELETE WHERE order_id = 'o4' SETTINGS mutations_sync = 2");
  await engine.command("ALTER TABLE order_chats UPDATE chat_at = chat_at - INTERVAL 1 DAY WHERE order_id = 'o5' SETTINGS mutations_sync = 2");
  const found = await differences();
  t.same(found.map((d) => [d.key.split(' ')[0], d.day]).sort(), [['o4', at(T0 + 20 * DAY).slice(0, 10)], ['o5', at(T0 + 50 * DAY).slice(0, 10)]]);
  await repairDays(engine, daysToRepair(found), 0);
  t.same(await verifyAggregates(engine), [], 'nothing to report after the repair');
  t.equal((await latest())['b1/o4/tc'], at(T0 + 19 * DAY));
});

t.test('a chat deleted under it is found by verify', async (t) => {
  const id = await idOf('b1', 'tc');
  await engine.command('ALTER TABLE conversation_starts DELETE WHERE token_id = {id:UInt64} SETTINGS mutations_sync = 2', { id });
  t.same((await differences()).map((d) => [d.key, d.stored, d.expected]), [[`o4 ${id}`, at(T0 + 19 * DAY), '']]);
});
