import t from 'tap';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { pino } from 'pino';
import { loadConfig } from '@chatlytics/core';
import { dashboardApp } from '@chatlytics/dashboard';
import { openEngines } from '../src/engines.js';
import { cli } from './child.js';

/**
 * `npm run cli -- digest:send --email E` on an embedded DATA_DIR: the user's digest now, for the
 * 7 UTC days ending yesterday, written to DATA_DIR/mail-outbox (no RESEND_API_KEY), with the
 * figures the statistics API gives for those days.
 */
const silent = pino({ level: 'silent' });
const ACCOUNT = '0e000000-0000-4000-8000-000000000001';
const BOT = '0e000000-0000-4000-8000-0000000000b1';
const KEY = 'ck_EEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEE';
const DAY = 86_400_000;
const today = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate());
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const at = (daysAgo: number, hour = 10) => new Date(today - daysAgo * DAY + hour * 3_600_000).toISOString();

// Three visitors last week (one chats, then buys), one the week before; one today (outside both windows).
const events = [
  ...['tok-eeee-0001', 'tok-eeee-0002', 'tok-eeee-0003'].map((token, i) => ({ event: 'visitor', token, data: { chatbot_id: BOT }, receivedAt: at(2 + i) })),
  { event: 'convo_started', token: 'tok-eeee-0001', data: { chatbot_id: BOT }, receivedAt: at(2, 11) },
  { event: 'purchase', token: 'tok-eeee-0001', data: { chatbot_id: BOT, orderNum: 'D-1', items: [{ id: 'sku', price: 25, quantity: 2, currency: 'EUR' }] }, receivedAt: at(2, 12) },
  { event: 'visitor', token: 'tok-eeee-0004', data: { chatbot_id: BOT }, receivedAt: at(9) },
  { event: 'visitor', token: 'tok-eeee-0005', data: { chatbot_id: BOT }, receivedAt: at(0, 0) },
];
const fixture = {
  accounts: [{
    id: ACCOUNT, name: 'Shop E', users: [{ email: 'eve@shop-e.test', password: 'eve-password' }], apiKeys: [{ name: 'ci', key: KEY }],
    chatbots: [{ id: BOT, name: 'Bot E', conversations: [{
      id: '0e000000-0000-4000-8000-0000000000c1', startedAt: at(3),
      messages: [{ role: 'user', content: 'where is my parcel', createdAt: at(3) }],
      analysis: { complaints: ['Late delivery'], missingInformation: ['Return policy'] },
    }] }],
  }],
  events,
};

t.setTimeout(600_000);

t.test('digest:send --email E', async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chatlytics-cli-digest-'));
  t.teardown(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  fs.writeFileSync(path.join(dataDir, 'fixture.json'), JSON.stringify(fixture));

  const usage = await cli(dataDir, ['digest:send']);
  t.equal(usage.code, 1);
  t.match(usage.stderr, /--email is required/);
  const imported = await cli(dataDir, ['import', path.join(dataDir, 'fixture.json')]);
  t.equal(imported.code, 0, 'import');
  t.match(imported.json().events, { accepted: events.length, inserted: events.length, rejected: [] }, 'every event stored');
  const nobody = await cli(dataDir, ['digest:send', '--email', 'nobody@shop-e.test']);
  t.equal(nobody.code, 1);
  t.match(nobody.stderr, 'no user with e-mail nobody@shop-e.test');

  const run = await cli(dataDir, ['digest:send', '--email', 'Eve@Shop-E.test']);
  t.equal(run.code, 0, run.stderr);
  const current = { from: day(today - 7 * DAY), to: day(today - DAY) };
  const previous = { from: day(today - 14 * DAY), to: day(today - 8 * DAY) };
  t.same(run.json().sent, { to: 'eve@shop-e.test', subject: `Your Chatlytics week: ${current.from} to ${current.to}`, windows: { current, previous }, chatbots: 1, transport: 'outbox' });

  const outbox = path.join(dataDir, 'mail-outbox');
  const files = fs.readdirSync(outbox).filter((f) => f.endsWith('.json'));
  t.equal(files.length, 1, 'one e-mail in the outbox');
  const mail = JSON.parse(fs.readFileSync(path.join(outbox, files[0]), 'utf8'));
  t.equal(mail.to, 'eve@shop-e.test');
  t.match(mail.headers['List-Unsubscribe'], /^<http:\/\/localhost:3000\/unsubscribe\/weekly-digest\?u=/);
  t.equal(mail.headers['List-Unsubscribe-Post'], 'List-Unsubscribe=One-Click');
  t.match(mail.html, /<!doctype html>/i);

  // The same days through the statistics API, on the stores the CLI wrote to.
  const config = loadConfig({ DATA_DIR: dataDir, SESSION_SECRET: 'cli-digest-session-secret'.padEnd(40, 'x') });
  const engines = await openEngines(config, silent, undefined, { migrate: false, bus: false });
  t.teardown(() => engines.close());
  const app = Fastify({ logger: false, pluginTimeout: 120_000 });
  await app.register(dashboardApp, { config, postgres: engines.postgres, clickhouse: engines.clickhouse, digest: { intervalMs: 0 } });
  t.teardown(() => app.close());
  const get = async (stat: string, q: Record<string, string>) =>
    (await app.inject({ method: 'GET', url: `/api/dashboard/analytics/stats/${stat}`, query: { chatbot_id: BOT, ...q }, headers: { authorization: `Bearer ${KEY}` } })).json();
  const [engagement, before, purchases, overview] = [await get('engagement', current), await get('engagement', previous), await get('purchases', current), await get('overview', current)];
  t.equal(engagement.total_users, 3, 'three visitors last week (today\'s is outside)');
  t.equal(before.total_users, 1);
  t.match(mail.text, `Visitors: ${engagement.total_users} (previous 7 days: ${before.total_users}; +200 %)`);
  t.match(mail.text, `Analysed conversations: ${overview.total_conversations} (previous 7 days: 0; new)`);
  t.equal(purchases.total_revenue_chatted_purchased, 50);
  t.match(mail.text, `Revenue after chat: €50.00 (previous 7 days: €0.00; new)`);
  t.match(mail.text, `Conversion with chat: ${purchases.conversion_rate_with_chat.toFixed(2)} % (previous 7 days: 0.00 %; +100.00 pp)`);
  t.match(mail.text, 'Top complaints:\n  1. Late delivery (1 conversation)');
  t.match(mail.text, 'Top missing information:\n  1. Return policy (1 conversation)');
});
