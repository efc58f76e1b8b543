import t from 'tap';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cli, exited, start, type Started } from './child.js';

/**
 * The reproduction through HTTP alone: the ingest service takes a backlog while no
 * consumer runs, then `npm start` drains it on the same data directory, is killed (SIGKILL) in the
 * middle of the drain and started again. Every visitor ends with one id and every id with one
 * visitor (before, up to 31 % of a chatbot's visitors shared ids for ever), and `cli verify` finds
 * nothing to repair. BACKLOG_CHATBOTS / BACKLOG_VISITORS scale it (default 20 × 6,000: about 237,000 events, three bus batches, so the kill lands between inserts).
 */
t.setTimeout(900_000);
const CHATBOTS = Number(process.env.BACKLOG_CHATBOTS ?? 20);
const VISITORS = Number(process.env.BACKLOG_VISITORS ?? 6_000);
const SQL_KEY = 'backlog-restart-sql-key-123';
const ingestEntry = ['--import', 'tsx', 'services/ingest/src/server.ts'];
// A browser: a bot's events are stored without an id (token_id 0) and counted nowhere.
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64; rv:126.0) Gecko/20100101 Firefox/126.0';
const botId = (i: number) => `56100000-0000-4000-8000-${String(i).padStart(12, '0')}`;

/** A visitor's day: a visit, and for some a popup, a conversation, a purchase. */
function journey(bot: string, v: number) {
  const token = `tok-${bot.slice(-4)}-${String(v).padStart(6, '0')}`;
  const data = { chatbot_id: bot };
  const events: object[] = [{ event: 'visitor', token, data }];
  if (v % 2 === 0) events.push({ event: 'popup_displayed', token, data: { ...data, popup_version: v % 4 === 0 ? 'A' : 'B' } });
  if (v % 3 === 0) events.push({ event: 'convo_started', token, data: { ...data, open_way: 'popup' } });
  if (v % 7 === 0) events.push({ event: 'purchase', token, data: { ...data, orderNum: `o-${bot.slice(-4)}-${v}`, items: [{ id: 'sku', price: 10, quantity: 1, currency: 'EUR' }] } });
  return events;
}

async function sendBacklog(url: string) {
  const all = Array.from({ length: CHATBOTS }, (_, b) => botId(b + 1)).flatMap((bot) => Array.from({ length: VISITORS }, (_, v) => journey(bot, v)).flat());
  // Interleaved by visitor across chatbots, as live traffic is; four requests in flight.
  const batches: object[][] = [];
  for (let i = 0; i < all.length; i += 100) batches.push(all.slice(i, i + 100));
  let next = 0;
  await Promise.all(Array.from({ length: 4 }, async () => {
    while (next < batches.length) {
      const events = batches[next++];
      const res = await fetch(`${url}/api/analytics/batch`, { method: 'POST', headers: { 'content-type': 'application/json', 'user-agent': BROWSER }, body: JSON.stringify({ events }) });
      if (res.status !== 200) throw new Error(`batch answered ${res.status}: ${await res.text()}`);
    }
  }));
  return all.length;
}

const sql = async (s: Started, query: string) => {
  const res = await fetch(`${s.url}/clickhouse/?query=${encodeURIComponent(query)}`, { headers: { 'x-clickhouse-key': SQL_KEY } });
  if (res.status !== 200) throw new Error(`${res.status}: ${await res.text()}`);
  return (await res.text()).trim();
};

const ANOMALIES = {
  idsNamingSeveralTokens: 'SELECT count() FROM (SELECT chatbot_id, token_id FROM events WHERE token_id != 0 GROUP BY chatbot_id, token_id HAVING uniqExact(token) > 1)',
  tokensWithSeveralIds: 'SELECT count() FROM (SELECT chatbot_id, token FROM events WHERE token_id != 0 GROUP BY chatbot_id, token HAVING uniqExact(token_id) > 1)',
};

t.test('a backlog drained by npm start, killed mid-drain and restarted: one id per visitor, verify finds nothing', async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chatlytics-backlog-'));
  t.teardown(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const env = { SQL_API_KEY: SQL_KEY, TRACK_RATE_LIMIT_PER_MINUTE: '100000000', SESSION_SECRET: 'backlog-restart'.padEnd(40, 'x') };

  const ingest = await start(dataDir, { ...env, INGEST_PORT: '0' }, 120_000, ingestEntry);
  t.teardown(() => { if (ingest.child.exitCode === null) ingest.child.kill('SIGKILL'); });
  const sent = await sendBacklog(ingest.url);
  ingest.child.kill('SIGTERM');
  t.equal(await exited(ingest.child), 0, `the ingest service stored ${sent} events on the bus and stopped`);

  const first = await start(dataDir, env);
  t.teardown(() => { if (first.child.exitCode === null) first.child.kill('SIGKILL'); });
  let stored = 0;
  while (stored === 0) {
    stored = Number(await sql(first, 'SELECT count() FROM events'));
    if (stored === 0) await new Promise((r) => setTimeout(r, 20));
  }
  first.child.kill('SIGKILL');
  await exited(first.child);
  t.ok(stored < sent, `killed in the middle of the drain (${stored} of ${sent} rows stored)`);

  const again = await start(dataDir, env);
  t.teardown(() => { if (again.child.exitCode === null) again.child.kill('SIGKILL'); });
  for (let i = 0; i < 1_200 && stored !== sent; i++) {
    stored = Number(await sql(again, 'SELECT count() FROM events'));
    if (stored !== sent) await new Promise((r) => setTimeout(r, 250));
  }
  t.equal(stored, sent, 'every event stored once');
  for (const [name, query] of Object.entries(ANOMALIES)) t.equal(await sql(again, query), '0', name);
  const perBot = await sql(again, 'SELECT uniqExact(token), uniqExact(token_id) FROM events WHERE token_id != 0 GROUP BY chatbot_id');
  t.same(perBot.split('\n'), Array(CHATBOTS).fill(`${VISITORS}\t${VISITORS}`), `each chatbot: ${VISITORS} visitors, ${VISITORS} ids`);
  again.child.kill('SIGTERM');
  t.equal(await exited(again.child), 0);

  const verified = await cli(dataDir, ['verify']);
  t.equal(verified.code, 0, `verify: ${verified.stdout.slice(0, 2_000)}${verified.stderr.slice(0, 2_000)}`);
});
