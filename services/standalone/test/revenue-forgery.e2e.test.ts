/**
 * Issue 41 end to end on `npm start`'s composition (ingest → bus → consumer → ClickHouse →
 * statistics API), in one process on the embedded engines: a shop's revenue cannot be forged
 * from outside. Anonymous tracking calls try what the issue lists; the owner's numbers do not
 * move, and the app counts what was set aside.
 */
import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { pino } from 'pino';
import { loadConfig } from '@chatlytics/core';
import { parseFixture } from '@chatlytics/dashboard';
import { openEngines } from '../src/engines.js';
import { buildStandalone } from '../src/standalone-app.js';
import { importIntoEngines } from '../src/cli/import-into-engines.js';

t.setTimeout(600_000);
const SHOP = '41000000-0000-4000-8000-000000000001';
const SIGNED = '41000000-0000-4000-8000-000000000002';
const KEY = `ck_${'r'.repeat(43)}`;
const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36';

const log = pino({ level: 'silent' });
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chatlytics-revenue-'));
t.teardown(() => fs.rmSync(dataDir, { recursive: true, force: true }));
const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', SESSION_SECRET: 'revenue-forgery-secret-'.padEnd(40, 'x') });
const engines = await openEngines(config, log);
await importIntoEngines(engines, parseFixture({
  accounts: [{ id: '41000000-0000-4000-8000-0000000000a1', name: 'Shop', apiKeys: [{ name: 'ci', key: KEY }], chatbots: [{ id: SHOP, name: 'Boots' }, { id: SIGNED, name: 'Signed boots' }] }],
}), { storageDir: path.join(dataDir, 'storage'), config, log });
await engines.close();
const standalone = await buildStandalone(config, log, { pluginTimeout: 120_000 });
t.teardown(() => standalone.close());
const { app } = standalone;
const auth = { authorization: `Bearer ${KEY}` };

const track = (body: object, headers: Record<string, string> = {}) =>
  app.inject({ method: 'POST', url: '/api/analytics/track', headers: { 'user-agent': UA, ...headers }, payload: body });
const purchase = (chatbotId: string, token: string, data: object) => ({ event: 'purchase', token, data: { chatbot_id: chatbotId, ...data } });
const stat = async (name: string, chatbotId: string) =>
  (await app.inject({ method: 'GET', url: `/api/dashboard/analytics/stats/${name}?chatbot_id=${chatbotId}&timeframe=1`, headers: auth })).json();

/** Polls the purchases statistic until `done` holds (the consumer flushes within a second or so). */
async function settled(chatbotId: string, done: (p: Record<string, number>, s: Record<string, number>) => boolean) {
  let p: Record<string, number> = {};
  let s: Record<string, number> = {};
  for (let i = 0; i < 150; i++) {
    [p, s] = [await stat('purchases', chatbotId), await stat('set-aside-purchases', chatbotId)];
    if (done(p, s)) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  return { p, s };
}

t.test('a purchase of 1e12 × 1e6 does not move the revenue; the app counts it as set aside', async (t) => {
  for (const token of ['buyer-token-1', 'forger-token-1']) t.equal((await track({ event: 'visitor', token, data: { chatbot_id: SHOP } })).statusCode, 200);
  t.equal((await track(purchase(SHOP, 'buyer-token-1', { orderNum: 'R-1', items: [{ item_id: 'boot', value: 89.9, quantity: 1 }] }))).statusCode, 200);
  const forged = await track(purchase(SHOP, 'forger-token-1', { orderNum: 'R-2', items: [{ item_id: 'x', value: 1e12, quantity: 1_000_000 }] }));
  t.equal(forged.statusCode, 200, 'tracking answers as usual');
  const over = await track(purchase(SHOP, 'forger-token-1', { orderNum: 'R-3', items: [{ item_id: 'x', value: 250_000, quantity: 1 }] }));
  t.equal(over.statusCode, 200);
  const { p, s } = await settled(SHOP, (p, s) => p.total_users_purchased >= 1 && s.total >= 2);
  t.equal(p.total_revenue_purchased, 89.9, 'only the real purchase is revenue');
  t.equal(p.total_users_purchased, 1);
  t.match(s, { total: 2, implausible: 2, unverified: 0, by_reason: { implausible_quantity: 1, implausible_value: 1 } });
});

t.test('signed purchases: a pre-claimed order number does not drop the real, signed purchase', async (t) => {
  const on = await app.inject({ method: 'PATCH', url: `/api/dashboard/chatbots/${SIGNED}`, headers: auth, payload: { requireSignedPurchases: true, allowedOrigins: ['https://shop.example'] } });
  t.equal(on.statusCode, 200);
  const secret = on.json().data.signingSecret as string;
  t.match(secret, /^cps_/);
  for (const token of ['buyer-token-2', 'forger-token-2']) t.equal((await track({ event: 'visitor', token, data: { chatbot_id: SIGNED } })).statusCode, 200);
  // The attacker claims the order first, for 0.01 EUR, unsigned and with a made-up signature.
  await track(purchase(SIGNED, 'forger-token-2', { orderNum: 'ORD-1001', currency: 'EUR', items: [{ item_id: 'x', value: 0.01, quantity: 1 }] }));
  await track(purchase(SIGNED, 'forger-token-2', { orderNum: 'ORD-1001', currency: 'EUR', items: [{ item_id: 'x', value: 0.01, quantity: 1 }], signature: 'a'.repeat(64) }));
  await new Promise((r) => setTimeout(r, 50));
  // The shop's backend signs the real order as services/ingest/README.md shows.
  const text = [SIGNED, 'ORD-1001', (59.97).toFixed(2), 'EUR'].join('\n');
  const signature = createHmac('sha256', secret).update(text).digest('hex');
  const real = await track(purchase(SIGNED, 'buyer-token-2', { orderNum: 'ORD-1001', currency: 'EUR', items: [{ item_id: 'boot', value: 19.99, quantity: 3 }], signature }), { origin: 'https://shop.example' });
  t.equal(real.statusCode, 200);
  const { p, s } = await settled(SIGNED, (p, s) => p.total_users_purchased >= 1 && s.total >= 2);
  t.equal(p.total_revenue_purchased, 59.97, 'the real order counts, the pre-claim does not');
  t.equal(p.total_users_purchased, 1);
  t.match(s, { total: 2, unverified: 2, by_reason: { missing_signature: 1, unverified_signature: 1 } });

  const evil = await track({ event: 'visitor', token: 'forger-token-2', data: { chatbot_id: SIGNED } }, { origin: 'https://evil.example' });
  t.equal(evil.statusCode, 403, 'a browser on another site is refused for this chatbot');
  t.equal(evil.json().error.code, 'ANALYTICS_003');
  t.equal((await track({ event: 'visitor', token: 'x-token-3', data: { chatbot_id: SHOP } }, { origin: 'https://evil.example' })).statusCode, 200, 'a chatbot without a list allows any origin');
});
