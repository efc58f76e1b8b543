/**
 * App page benchmark (the second part of `npm run bench:dashboard`, alone `npm run bench:app-pages`): every
 * page under /app on the demo data (`npm run cli -- demo`: three chatbots, 30 days of events), its
 * server time per request (Fastify inject: routing, session, repositories, ClickHouse and
 * PostgreSQL reads and rendering, no network), p50 / p95 / max over sequential requests, and the
 * CPU the process spent per request (every thread: the embedded ClickHouse's and PGlite's too;
 * steadier than the times when comparing two versions). The
 * statistics cache is off (--cache-ms, default 0), so every request runs its queries, as
 * the first visitor after the cache expired would: targets p95 ≤ 50 ms per page, ≤ 400 ms for
 * the analytics page compared with the previous period (its default; `compare=none` rows measure
 * it without). Then each windowed statistic of the JSON API with and without
 * `compare=previous` (target: ≤ 1.6× its own time). Also the
 * size of each page's scripts and style sheets, raw and gzip-compressed (the issue's 200 KB gzip
 * budget for the heaviest page; the server itself sends them uncompressed).
 * Options: --requests (per page, default 50), --cache-ms (default 0). Env:
 * CLICKHOUSE_EMBEDDED_CONNECTIONS (as the service's; 1 measures the statistics run one at a time).
 * It measures; it does not judge the machine: a loaded one reads slower.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import Fastify, { type FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { loadConfig } from '@chatlytics/core';
import { dashboardApp, parseFixture } from '@chatlytics/dashboard';
import { buildDemoFixture, importIntoEngines, openEngines } from '@chatlytics/standalone';
import { opt, type Values } from '../lib/args.js';
import { defineBench } from '../lib/bench.js';
import type { Report } from '../lib/report.js';
import { quantile as pct } from '../lib/stats.js';

const APP_PAGES_OPTIONS = {
  requests: opt.number(50, 'sequential requests per page (after 3 warm-up ones)', { min: 1, integer: true }),
  'cache-ms': opt.number(0, 'the statistics cache\'s lifetime (0: every request runs its queries)', { min: 0 }),
};

export default defineBench({ summary: 'Server time of every app page on the demo data (statistics cache off), the size of its scripts and styles, and the statistics API with and without compare=previous.', options: APP_PAGES_OPTIONS, run: benchAppPages });

const WARM_UP = 3;
const TARGET_P95_MS = 50;
/** The analytics page compared with the previous period. */
const COMPARED_P95_MS = 400;
const COMPARE_MAX_RATIO = 1.6;
const HOST = '127.0.0.1:3000';
const DAY = 86_400_000;

/** A session of the demo user: the app pages take no API key. */
async function logIn(app: FastifyInstance): Promise<string> {
  const res = await app.inject({
    method: 'POST', url: '/login', headers: { host: HOST, origin: `http://${HOST}`, 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'email=demo%40example.com&password=demo-password',
  });
  const session = res.cookies.find((c) => c.name === 'chatlytics_session');
  if (!session) throw new Error(`log-in failed: ${res.statusCode} ${res.body.slice(0, 200)}`);
  return `chatlytics_session=${session.value}`;
}

/** The pages to measure, with real ids of the demo account (its A/B chatbot, one of its conversations). */
async function pages(app: FastifyInstance, cookie: string): Promise<[string, string][]> {
  const get = async (url: string) => (await app.inject({ method: 'GET', url, headers: { host: HOST, cookie } })).json();
  const { data } = await get('/api/dashboard/chatbots') as { data: { chatbots: { id: string; name: string; conversations: number }[] } };
  const bot = [...data.chatbots].sort((a, b) => b.conversations - a.conversations)[0];
  const insights = await get(`/api/dashboard/analytics/stats/conversation-insights?chatbot_id=${bot.id}&timeframe=month`) as Record<string, { conversations: string[] }[]>;
  const link = insights.most_talked_about_products?.[0]?.conversations[0] ?? '';
  const conversation = /\/app\/.*$/.exec(link)?.[0];
  const day = (back: number) => new Date(Date.now() - back * DAY).toISOString().slice(0, 10);
  const list: [string, string][] = [
    ['chatbot list', '/app'],
    ['analytics, 7 days, compared', `/app/${bot.id}/analytics?timeframe=7`],
    ['analytics, 7 days', `/app/${bot.id}/analytics?timeframe=7&compare=none`],
    ['analytics, 30 days, compared', `/app/${bot.id}/analytics?timeframe=30`],
    ['analytics, 30 days', `/app/${bot.id}/analytics?timeframe=30&compare=none`],
    ['analytics, 7-day range, compared', `/app/${bot.id}/analytics?from=${day(13)}&to=${day(7)}`],
    ['analytics, a 7-day range', `/app/${bot.id}/analytics?from=${day(13)}&to=${day(7)}&compare=none`],
    ['insights, month', `/app/${bot.id}/insights?timeframe=month`],
    ['live', `/app/${bot.id}/live`],
    ['settings', '/app/settings'],
    ['add a chatbot', '/app/chatbots/new'],
    ['setup snippet', `/app/${bot.id}/setup`],
    ['data sources', '/app/data-sources'],
    ['data sources of one chatbot, tag "help"', `/app/data-sources?chatbot_id=${bot.id}&tag=help`],
    ['search test form', `/app/data-sources/search?chatbot_id=${bot.id}`],
  ];
  // The data-source detail of the chatbot's crawl with its children and chunks (the demo's largest detail page).
  const sources = await get('/api/dashboard/data-sources') as { data: { dataSources: { id: string; chatbotId: string; childrenCount: number }[] } };
  const source = sources.data.dataSources.find((d) => d.chatbotId === bot.id && d.childrenCount > 0);
  if (source) list.push(['data source detail', `/app/data-sources/${source.id}`]);
  if (conversation) list.splice(5, 0, ['conversation', conversation]);
  return list;
}

/** Server times of `requests` sequential GETs after the warm-up, sorted; the CPU per request; the last body; non-200 answers. */
async function measure(app: FastifyInstance, url: string, headers: Record<string, string>, requests: number) {
  const times: number[] = [];
  let bad = 0;
  let body = '';
  let cpu = process.cpuUsage();
  for (let i = 0; i < WARM_UP + requests; i++) {
    if (i === WARM_UP) cpu = process.cpuUsage();
    const start = performance.now();
    const res = await app.inject({ method: 'GET', url, headers });
    const ms = performance.now() - start;
    if (res.statusCode !== 200) bad++;
    if (i >= WARM_UP) times.push(ms);
    body = res.body;
  }
  const used = process.cpuUsage(cpu);
  return { times: times.sort((a, b) => a - b), cpuMs: (used.user + used.system) / 1000 / requests, body, bad };
}

/** Each windowed statistic over 30 days, alone and with compare=previous: p50, p95 and their ratio. */
async function compareRows(app: FastifyInstance, cookie: string, chatbotId: string, requests: number, report: Report): Promise<string[]> {
  const rows: string[] = [];
  for (const stat of ['overview', 'engagement', 'popup-metrics', 'purchases', 'timeseries', 'sources']) {
    const url = `/api/dashboard/analytics/stats/${stat}?chatbot_id=${chatbotId}&timeframe=30`;
    const plain = await measure(app, url, { host: HOST, cookie }, requests);
    const both = await measure(app, `${url}&compare=previous`, { host: HOST, cookie }, requests);
    if (plain.bad || both.bad) throw new Error(`${stat}: ${plain.bad + both.bad} answers not 200`);
    const ratio = pct(both.times, 0.5) / pct(plain.times, 0.5);
    rows.push(`${stat.padEnd(14)} alone p50 ${pct(plain.times, 0.5).toFixed(1).padStart(6)} ms p95 ${pct(plain.times, 0.95).toFixed(1).padStart(6)} ms`
      + `   compare=previous p50 ${pct(both.times, 0.5).toFixed(1).padStart(6)} ms p95 ${pct(both.times, 0.95).toFixed(1).padStart(6)} ms`
      + `   ×${ratio.toFixed(2)} (p50) ${ratio <= COMPARE_MAX_RATIO ? `(≤ ${COMPARE_MAX_RATIO}×)` : `(OVER ${COMPARE_MAX_RATIO}×)`}  CPU ×${(both.cpuMs / plain.cpuMs).toFixed(2)}`);
    for (const [compare, m] of [['none', plain], ['previous', both]] as const) {
      report.figures({ part: 'statistics API', statistic: stat, timeframe: 30, compare, requests }, [
        ['p50', pct(m.times, 0.5), 'ms'], ['p95', pct(m.times, 0.95), 'ms'], ['CPU per request', m.cpuMs, 'ms'],
      ]);
    }
    report.figure('compare=previous ÷ alone', ratio, '×', { part: 'statistics API', statistic: stat, of: 'p50', target: COMPARE_MAX_RATIO, cpuRatio: Number((both.cpuMs / plain.cpuMs).toFixed(3)) });
  }
  return rows;
}

/** Scripts and style sheets a page loads, raw and gzip bytes (what a compressing proxy would send). */
async function assetBytes(app: FastifyInstance, html: string): Promise<{ raw: number; gzip: number }> {
  const urls = [...html.matchAll(/<script src="([^"]+)"|<link rel="stylesheet" href="([^"]+)"/g)].map((m) => m[1] ?? m[2]);
  let raw = 0;
  let gzip = 0;
  for (const url of urls) {
    const body = (await app.inject({ method: 'GET', url })).rawPayload;
    raw += body.length;
    gzip += zlib.gzipSync(body, { level: 9 }).length;
  }
  return { raw, gzip };
}

/** Every app page, then the statistics API alone and compared. */
async function benchAppPages(o: Values<typeof APP_PAGES_OPTIONS>, report: Report): Promise<void> {
  const log = pino({ level: 'silent' });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-app-pages-'));
  const config = loadConfig({
    DATA_DIR: dataDir, LOG_LEVEL: 'silent', SESSION_SECRET: 'bench-app-pages'.padEnd(40, 'x'),
    CLICKHOUSE_EMBEDDED_CONNECTIONS: process.env.CLICKHOUSE_EMBEDDED_CONNECTIONS,
  });
  report.text(`${o.requests} requests per page, statistics cache ${o['cache-ms']} ms; ${config.clickhouse.embeddedConnections} embedded ClickHouse connection(s)`);
  const engines = await openEngines(config, log);
  const app = Fastify({ logger: false, pluginTimeout: 120_000 });
  try {
    const t0 = performance.now();
    await importIntoEngines(engines, parseFixture(buildDemoFixture({ now: new Date() })), { config, log });
    report.text(`demo data imported in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    await app.register(dashboardApp, { config, postgres: engines.postgres, clickhouse: engines.clickhouse, log, statsCacheTtlMs: o['cache-ms'] });
    await app.ready();
    const cookie = await logIn(app);
    const rows: string[] = [];
    let heaviest = { label: '', gzip: 0, raw: 0 };
    const list = await pages(app, cookie);
    for (const [label, url] of list) {
      const { times, cpuMs, body: html, bad } = await measure(app, url, { host: HOST, cookie, accept: 'text/html' }, o.requests);
      const assets = await assetBytes(app, html);
      if (assets.gzip > heaviest.gzip) heaviest = { label, ...assets };
      const p95 = pct(times, 0.95);
      const target = label.endsWith(', compared') ? COMPARED_P95_MS : TARGET_P95_MS;
      rows.push(`${label.padEnd(32)} p50 ${pct(times, 0.5).toFixed(1).padStart(6)} ms  p95 ${p95.toFixed(1).padStart(6)} ms  max ${times.at(-1)!.toFixed(1).padStart(6)} ms`
        + `  ${p95 <= target ? `(≤ ${target} ms)` : `(OVER ${target} ms)`}  CPU ${cpuMs.toFixed(1).padStart(5)} ms  html ${(html.length / 1024).toFixed(0)} KiB`
        + `  js+css ${(assets.raw / 1024).toFixed(0)} KiB, gzip ${(assets.gzip / 1024).toFixed(1)} KiB${bad ? `  [${bad} not 200]` : ''}`);
      report.figures({ part: 'app pages', page: label, requests: o.requests, cacheMs: o['cache-ms'], target, notOk: bad }, [
        ['p50', pct(times, 0.5), 'ms'], ['p95', p95, 'ms'], ['max', times.at(-1)!, 'ms'], ['CPU per request', cpuMs, 'ms'],
        ['html', html.length / 1024, 'KiB'], ['scripts and styles', assets.raw / 1024, 'KiB'], ['scripts and styles gzip', assets.gzip / 1024, 'KiB'],
      ]);
    }
    report.text(rows.join('\n'));
    report.text(`heaviest page's scripts and styles: ${heaviest.label}, ${(heaviest.gzip / 1024).toFixed(1)} KiB gzip (${(heaviest.raw / 1024).toFixed(0)} KiB raw)`);
    const botId = /\/app\/([0-9a-f-]{36})\/analytics/.exec(list[1][1])![1];
    report.text(`statistics API, 30 days, alone and with compare=previous:\n${(await compareRows(app, cookie, botId, o.requests, report)).join('\n')}`);
  } finally {
    await app.close();
    await engines.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
