/**
 * `npm run bench:freshness`: how long after its 200 an event shows in every statistic, read
 * through the statistics API as a dashboard reads it (statistics cache on, at its default).
 *
 * `npm start`'s application in this process (embedded bus, consumer and ClickHouse, PGlite) on
 * the demo data, over HTTP on loopback. Each round tracks one new visitor of the A/B chatbot
 * (visitor, popup_displayed, convo_started, a purchase with a new order number, with a browser's
 * User-Agent), then polls engagement, popup-metrics, purchases, timeseries and live-events every
 * 50 ms until each shows it. Target: ≤ 2 s for every statistic. Option: --rounds (default 10).
 * Exit code 1 when a round misses the target.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { loadConfig } from '@chatlytics/core';
import { parseFixture } from '@chatlytics/dashboard';
import { buildDemoFixture, buildStandalone, importIntoEngines, openEngines } from '@chatlytics/standalone';
import { opt } from './lib/args.js';
import { defineBench } from './lib/bench.js';
import { machineLoad } from './lib/machine.js';
import type { Report } from './lib/report.js';
import { quantile } from './lib/stats.js';

const TARGET_MS = 2000;
const GIVE_UP_MS = 15_000;
const BROWSER_UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0';

type Body = Record<string, unknown>;
const sum = (rows: unknown, key: string) => (rows as Body[]).reduce((n, r) => n + Number(r[key]), 0);

/** Each statistic's route and the number a new visitor with one purchase raises by `by`. */
const STATS: { name: string; route: string; read: (b: Body) => number; by: number }[] = [
  { name: 'engagement', route: 'engagement', read: (b) => Number(b.total_users_chatted), by: 1 },
  { name: 'popup-metrics', route: 'popup-metrics', read: (b) => sum(b.metrics, 'popup_displayed_count'), by: 1 },
  { name: 'purchases', route: 'purchases', read: (b) => Number(b.total_users_purchased), by: 1 },
  { name: 'timeseries', route: 'timeseries', read: (b) => sum(b.days, 'purchases'), by: 1 },
  { name: 'live-events', route: 'live-events', read: (b) => sum(b.minutes, 'events'), by: 4 },
];

export default defineBench({
  summary: 'How long after its 200 a tracked event shows in every statistic of the API (npm start\'s application, demo data).',
  options: { rounds: opt.number(10, 'rounds, each one new visitor with a purchase', { min: 1, integer: true }) },
  run: (o, report) => main(o.rounds, report),
});

async function main(rounds: number, report: Report): Promise<void> {
  const log = pino({ level: 'silent' });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-freshness-'));
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', SESSION_SECRET: 'bench-freshness'.padEnd(40, 'x') });
  const engines = await openEngines(config, log);
  await importIntoEngines(engines, parseFixture(buildDemoFixture({ now: new Date(), days: 3, visitorsPerDay: 40 })), { config, log });
  await engines.close();
  const standalone = await buildStandalone(config, log, { pluginTimeout: 120_000 });
  try {
    const origin = await standalone.app.listen({ port: 0, host: '127.0.0.1' });
    const login = await fetch(`${origin}/login`, {
      method: 'POST', redirect: 'manual', headers: { origin, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'email=demo%40example.com&password=demo-password',
    });
    const cookie = login.headers.getSetCookie().find((c) => c.startsWith('chatlytics_session='))?.split(';')[0];
    if (!cookie) throw new Error(`log-in failed: ${login.status}`);
    const get = async (url: string) => (await (await fetch(`${origin}${url}`, { headers: { cookie } })).json()) as Body;
    const bots = (await get('/api/dashboard/chatbots')).data as { chatbots: { id: string; abTestEnabled: boolean }[] };
    const bot = bots.chatbots.find((b) => b.abTestEnabled)?.id ?? bots.chatbots[0].id;
    const statUrl = (route: string) => `/api/dashboard/analytics/stats/${route}?chatbot_id=${bot}${route === 'live-events' ? '' : '&timeframe=1'}`;
    const read = async () => Promise.all(STATS.map(async (s) => s.read(await get(statUrl(s.route)))));

    const perStat = STATS.map(() => [] as number[]);
    const worst: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const before = await read();
      const token = `freshness-${round}-${Date.now().toString(36)}`;
      const track = (event: string, data: Body) => fetch(`${origin}/api/analytics/track`, {
        method: 'POST', headers: { 'content-type': 'application/json', 'user-agent': BROWSER_UA },
        body: JSON.stringify({ event, token, data: { chatbot_id: bot, ...data } }),
      });
      const acks = await Promise.all([
        track('visitor', {}), track('popup_displayed', { popup_version: 'v1' }), track('convo_started', { open_way: 'popup' }),
        track('tracktrans', { orderNum: `FRESH-${round}-${token}`, items: [{ id: 'sku', price: 10, quantity: 1, currency: 'EUR' }] }),
      ]);
      if (acks.some((r) => r.status !== 200)) throw new Error(`tracking answered ${acks.map((r) => r.status)}`);
      const acked = performance.now();
      const seen: (number | undefined)[] = STATS.map(() => undefined);
      while (seen.some((s) => s === undefined) && performance.now() - acked < GIVE_UP_MS) {
        const now = await read();
        const at = performance.now() - acked;
        now.forEach((v, i) => { if (seen[i] === undefined && v >= before[i] + STATS[i].by) seen[i] = at; });
        await new Promise((r) => setTimeout(r, 50));
      }
      seen.forEach((ms, i) => perStat[i].push(ms ?? Infinity));
      worst.push(Math.max(...seen.map((ms) => ms ?? Infinity)));
    }
    report.text(`${rounds} rounds, statistics cache at its default; load average ${machineLoad().loadAverage.join(' ')}`);
    STATS.forEach((s, i) => {
      const ms = [...perStat[i]].sort((a, b) => a - b);
      report.text(`${s.name.padEnd(14)} visible after p50 ${quantile(ms, 0.5).toFixed(0)} ms, max ${ms.at(-1)!.toFixed(0)} ms`);
      report.figure('visible after p50', quantile(ms, 0.5), 'ms', { statistic: s.name, rounds });
      report.figure('visible after max', ms.at(-1)!, 'ms', { statistic: s.name, rounds });
    });
    const all = [...worst].sort((a, b) => a - b);
    report.text(`every statistic: p50 ${quantile(all, 0.5).toFixed(0)} ms, max ${all.at(-1)!.toFixed(0)} ms (target ≤ ${TARGET_MS} ms)`);
    report.figure('visible after p50', quantile(all, 0.5), 'ms', { statistic: 'every statistic', rounds });
    report.figure('visible after max', all.at(-1)!, 'ms', { statistic: 'every statistic', rounds, target: TARGET_MS });
    if (all.at(-1)! > TARGET_MS) process.exitCode = 1;
  } finally {
    await standalone.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
