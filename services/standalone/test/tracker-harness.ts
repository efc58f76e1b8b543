/**
 * The tracker against a running `npm start` app, in Chromium: the app (built in-process on a
 * temporary DATA_DIR, embedded engines), a shop's page on another origin that embeds
 * /tracker.js, and a gateway between the page and the ingest endpoint that the tests can take
 * down (connection refused, as a stopped server), make answer 429/503, or make hang.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { createLogger, loadConfig } from '@chatlytics/core';
import { buildStandalone, type Standalone } from '../src/standalone-app.js';

export const CHROMIUM = '/usr/bin/chromium';
// Under CI a missing browser is a failure, never a skip (CI installs chromium).
export const skipBrowser = !fs.existsSync(CHROMIUM) && process.env.CI !== 'true' ? `${CHROMIUM} not installed` : false;
const SQL_KEY = 'tracker-browser-test-key';

export type GatewayMode = { kind: 'pass' } | { kind: 'status'; status: number; retryAfter: string } | { kind: 'hang' };
export interface Seen { at: number; ids: string[]; status: number | 'hung' }

/** The ingest endpoint as the page sees it. */
export class Gateway {
  mode: GatewayMode = { kind: 'pass' };
  readonly seen: Seen[] = [];
  private server: http.Server;
  private sockets = new Set<net.Socket>();
  port = 0;
  constructor(private readonly target: number) {
    this.server = http.createServer((req, res) => this.handle(req, res));
    this.server.on('connection', (s) => { this.sockets.add(s); s.on('close', () => this.sockets.delete(s)); });
  }
  async up(): Promise<void> {
    await new Promise<void>((r) => this.server.listen(this.port, '127.0.0.1', r));
    this.port = (this.server.address() as net.AddressInfo).port;
  }
  /** Refuses connections from now on, and cuts the open ones (hung requests included). */
  async down(): Promise<void> {
    const closed = new Promise((r) => this.server.close(r));
    for (const s of this.sockets) s.destroy();
    await closed;
  }
  get url() { return `http://127.0.0.1:${this.port}`; }
  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      let ids: string[] = [];
      try { ids = JSON.parse(body.toString()).events.map((e: { data: { event_id: string } }) => e.data.event_id); } catch { /* preflight or garbage */ }
      const seen: Seen = { at: Date.now(), ids, status: 'hung' };
      if (req.method === 'POST') this.seen.push(seen);
      const mode = this.mode;
      if (mode.kind === 'hang') return;
      if (mode.kind === 'status') {
        seen.status = mode.status;
        res.writeHead(mode.status, { 'access-control-allow-origin': '*', 'access-control-expose-headers': 'Retry-After', 'retry-after': mode.retryAfter, 'content-type': 'application/json' });
        res.end('{"success":false,"error":{"code":null,"message":"injected"}}');
        return;
      }
      const fwd = http.request({ host: '127.0.0.1', port: this.target, path: req.url, method: req.method, headers: req.headers }, (up) => {
        seen.status = up.statusCode ?? 0;
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      });
      fwd.on('error', () => res.destroy());
      fwd.end(body);
    });
  }
}

export interface Harness {
  app: Standalone;
  appUrl: string;
  gateway: Gateway;
  browser: Browser;
  /** The shop's page for one chatbot, embedding the script with these data-* attributes. */
  pageUrl(chatbotId: string, attrs?: Record<string, string>): string;
  /** Rows stored for the chatbot: how many, and how many distinct event_ids. */
  stored(chatbotId: string): Promise<{ rows: number; ids: number }>;
  /** A read of ClickHouse through the SQL interface, as JSONEachRow rows. */
  sql<T>(query: string): Promise<T[]>;
  /** Polls until `ids` distinct events are stored (or the time is up), then returns the counts. */
  waitStored(chatbotId: string, ids: number, timeoutMs?: number): Promise<{ rows: number; ids: number }>;
  close(): Promise<void>;
}

const shopPage = (appUrl: string, endpoint: string, attrs: Record<string, string>) => `<!doctype html><html><head><meta charset="utf-8">
<script>window.chatlytics=window.chatlytics||{q:[],track:function(){this.q.push(['track',arguments])},consent:function(){this.q.push(['consent',arguments])}};</script>
<script async src="${appUrl}/tracker.js" data-endpoint="${endpoint}" ${Object.entries(attrs).map(([k, v]) => `data-${k}="${v}"`).join(' ')}></script>
</head><body>shop</body></html>`;

export async function startHarness(): Promise<Harness> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chatlytics-tracker-'));
  const config = loadConfig({ DATA_DIR: dataDir, SQL_API_KEY: SQL_KEY, LOG_LEVEL: 'warn', TRACK_RATE_LIMIT_PER_MINUTE: '100000' });
  const log = createLogger('warn', 'tracker-test');
  // Fastify gives each plugin 10 s to start; on a machine loaded many times over its cores the
  // dashboard's can take longer. One more try, only for that error.
  const app = await buildStandalone(config, log).catch((err: Error) => {
    if (!/did not start in time/.test(err.message)) throw err;
    return buildStandalone(config, log);
  });
  await app.app.listen({ port: 0, host: '127.0.0.1' });
  const appPort = (app.app.server.address() as net.AddressInfo).port;
  const appUrl = `http://127.0.0.1:${appPort}`;
  const gateway = new Gateway(appPort);
  await gateway.up();
  // The shop: another origin, so the tracker's requests are cross-origin as on a real site.
  const shop = http.createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://shop');
    const attrs = Object.fromEntries(u.searchParams);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(shopPage(appUrl, gateway.url, attrs));
  });
  await new Promise<void>((r) => shop.listen(0, '127.0.0.1', r));
  const shopUrl = `http://127.0.0.1:${(shop.address() as net.AddressInfo).port}`;
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });

  async function stored(chatbotId: string) {
    const sql = `SELECT count() AS rows, uniqExact(event_id) AS ids FROM events WHERE chatbot_id = '${chatbotId}' FORMAT JSONEachRow`;
    const res = await fetch(`${appUrl}/clickhouse/?query=${encodeURIComponent(sql)}`, { headers: { 'x-clickhouse-key': SQL_KEY } });
    const row = JSON.parse(await res.text()) as { rows: string | number; ids: string | number };
    return { rows: Number(row.rows), ids: Number(row.ids) };
  }
  async function sql<T>(query: string): Promise<T[]> {
    const res = await fetch(`${appUrl}/clickhouse/?query=${encodeURIComponent(`${query} FORMAT JSONEachRow`)}`, { headers: { 'x-clickhouse-key': SQL_KEY } });
    return (await res.text()).split('\n').filter(Boolean).map((l) => JSON.parse(l) as T);
  }
  return {
    app, appUrl, gateway, browser, stored, sql,
    pageUrl: (chatbotId, attrs = {}) => `${shopUrl}/?${new URLSearchParams({ 'chatbot-id': chatbotId, ...attrs })}`,
    async waitStored(chatbotId, ids, timeoutMs = 60_000) {
      const end = Date.now() + timeoutMs;
      let got = await stored(chatbotId);
      while (got.ids < ids && Date.now() < end) {
        await new Promise((r) => setTimeout(r, 250));
        got = await stored(chatbotId);
      }
      // A duplicate would land with or after the last original: give it the consumer's time to show.
      await new Promise((r) => setTimeout(r, 1500));
      return stored(chatbotId);
    },
    async close() {
      await browser.close();
      await gateway.down().catch(() => undefined);
      await new Promise((r) => shop.close(r));
      await app.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export const newChatbot = () => randomUUID();
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What the tests touch in the page (the workspace compiles without the DOM library). */
export interface PageGlobals {
  chatlytics: { track(e: string, d?: object): void; consent(g: boolean): void; flush?(): Promise<void>; token: string | null; abGroup: string | null };
  localStorage: Record<string, string>;
  longTasks: number[];
  PerformanceObserver: new (cb: (list: { getEntries(): { duration: number }[] }) => void) => { observe(o: { type: string }): void };
  performance: { now(): number };
  Navigator: { prototype: object };
}
