import t from 'tap';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { eq } from 'drizzle-orm';
import { loadConfig } from '@chatlytics/core';
import { chatbots } from '@chatlytics/postgres';
import { mintOrdersKey, ordersKeyHash } from '@chatlytics/events';
import { buildStandalone } from '../src/standalone-app.js';
import { runCommand } from '../src/cli/commands.js';
import { parseCommand } from '../src/cli/spec.js';

/**
 * Orders on `npm start`: POST /api/orders with the chatbot's key reaches ClickHouse `orders`
 * through the same bus and consumer as tracking, and `cli import-orders` backfills a JSONL file
 * of the endpoint's bodies (a bad line refuses the whole file).
 */
t.setTimeout(300_000);
const BOT = '59000000-0000-4000-8000-000000000001';
const log = pino({ level: 'silent' });
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chatlytics-orders-'));
t.teardown(() => fs.rmSync(dataDir, { recursive: true, force: true }));
const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', SESSION_SECRET: 'orders-on-npm-start'.padEnd(40, 'x') });
const standalone = await buildStandalone(config, log, { pluginTimeout: 120_000 });
t.teardown(() => standalone.close());
const ctx = { config, log, stores: { postgres: standalone.postgres, clickhouse: standalone.clickhouse, bus: standalone.bus } };
await runCommand({ command: 'import', file: 'fixture.json', json: { accounts: [{ id: '59000000-0000-4000-8000-0000000000a1', name: 'Shop', chatbots: [{ id: BOT, name: 'Boots' }] }] } }, ctx);
const key = mintOrdersKey(BOT);
await standalone.postgres.db.update(chatbots).set({ ordersKeyHash: ordersKeyHash(key) }).where(eq(chatbots.id, BOT));

const stateOf = async (orderId: string) => {
  for (let i = 0; i < 200; i++) {
    const rows = await standalone.clickhouse.query<{ status: string; net_value: number; source: string }>(
      'SELECT status, net_value, source FROM orders FINAL WHERE chatbot_id = {bot:String} AND order_id = {id:String}', { bot: BOT, id: orderId });
    if (rows.length > 0) return rows[0];
    await new Promise((r) => setTimeout(r, 100));
  }
  return undefined;
};
const body = (orderId: string, extra: object = {}) => ({
  order_id: orderId, token: 'tok_visitor-0001', placed_at: '2026-03-01T10:00:00Z', currency: 'EUR', items: [{ item_id: 'p1', quantity: 2, value: 15 }], status: 'paid', ...extra,
});

t.test('POST /api/orders on npm start: 401 without the key, 200 with it, and the order in ClickHouse', async (t) => {
  const refused = await standalone.app.inject({ method: 'POST', url: '/api/orders', payload: body('WEB-1') });
  t.equal(refused.statusCode, 401);
  const res = await standalone.app.inject({ method: 'POST', url: '/api/orders', headers: { authorization: `Bearer ${key}` }, payload: body('WEB-1') });
  t.equal(res.statusCode, 200, res.body);
  t.match(await stateOf('WEB-1'), { status: 'paid', net_value: 30, source: 'api' });
  const tracking = await standalone.app.inject({ method: 'POST', url: '/api/analytics/track', headers: { authorization: `Bearer ${key}` }, payload: body('WEB-2') });
  t.not(tracking.statusCode, 200, 'the public tracking path takes no orders');
});

t.test('cli import-orders: every line checked first, then stored through the bus', async (t) => {
  const file = path.join(dataDir, 'orders.jsonl');
  fs.writeFileSync(file, [JSON.stringify(body('IMP-1')), '', JSON.stringify(body('IMP-2', { refunds: [{ refund_id: 'r1', at: '2026-03-02T00:00:00Z', amount: 10 }] })), JSON.stringify(body('IMP-1', { status: 'cancelled' }))].join('\n'));
  const input = parseCommand('import-orders', [file, '--chatbot', BOT]);
  t.match(await runCommand(input, ctx), { orders: 3, distinctOrders: 2 });
  t.match(await stateOf('IMP-1'), { status: 'cancelled', net_value: 0, source: 'import' });
  t.match(await stateOf('IMP-2'), { status: 'paid', net_value: 20 });

  const bad = path.join(dataDir, 'bad.jsonl');
  fs.writeFileSync(bad, [JSON.stringify(body('BAD-1')), '{"order_id":', JSON.stringify(body('BAD-2', { status: 'shipped' }))].join('\n'));
  await t.rejects(runCommand(parseCommand('import-orders', [bad, '--chatbot', BOT]), ctx), /line 2:[\s\S]*line 3: status/);
  t.same(await standalone.clickhouse.query("SELECT 1 FROM orders WHERE order_id = 'BAD-1'"), [], 'nothing of a refused file is stored (checked before anything is published)');
  t.throws(() => parseCommand('import-orders', [file]), /--chatbot/);
});
