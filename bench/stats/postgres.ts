/**
 * The baseline of the stats bench (index.ts): the same statistics definitions
 * (services/dashboard/docs/statistics.md) as clickhouse/queries/stats/, written for PostgreSQL
 * over a copy of the same events, with the indexes PostgreSQL needs to do its best (the same
 * (chatbot_id, received_at) order as ClickHouse's key, plus event_id for the deduplication
 * look-ups). Bot rows (is_bot) are left out of every read, as in clickhouse/queries/shared/.
 * Parameters: $1 chatbot_id, $2 from, $3 to.
 */
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import type { ClickHouseEngine } from '@chatlytics/clickhouse';
import type { Report } from '../lib/report.js';

export const PG_TABLE_DDL = `
create table bench_events (
  event_id uuid not null, event text not null, token text not null, chatbot_id text not null,
  received_at timestamptz not null, ab_group text, popup_version text not null, open_way text not null,
  order_num text not null, total_value_base double precision, is_bot boolean not null
)`;
export const PG_INDEX_DDL = [
  'create index bench_events_bot_time on bench_events (chatbot_id, received_at)',
  'create index bench_events_event_id on bench_events (event_id)',
  'analyze bench_events',
];
/** Column order of the CSV exported from ClickHouse. */
const PG_COLUMNS = ['event_id', 'event', 'token', 'chatbot_id', 'received_at', 'ab_group', 'popup_version', 'open_way', 'order_num', 'total_value_base', 'is_bot'];

// "Not a retry of an event that arrived in the lookback before the window" (the retry rule,
// services/dashboard/src/stats/retry-lookback.ts: one day): the ClickHouse NOT IN.
const fresh = (alias: string) =>
  `not exists (select 1 from bench_events x where x.event_id = ${alias}.event_id and x.chatbot_id = $1
     and x.received_at >= $2::timestamptz - interval '1 day' and x.received_at < $2 and not x.is_bot)`;

// The purchases that count in the window (clickhouse/queries/shared/window_purchases.sql): each
// purchase once at its earliest copy (retry rule), each order number once over all history.
const COUNTED_PURCHASES = `
    pe as (
      select event_id, min(received_at) at, (array_agg(token order by received_at))[1] token,
             (array_agg(order_num order by received_at))[1] order_num,
             (array_agg(coalesce(total_value_base, 0) order by received_at))[1] revenue
      from bench_events
      where chatbot_id = $1 and received_at between $2::timestamptz - interval '1 day' and $3 and event = 'purchase' and not is_bot
      group by event_id having min(received_at) >= $2),
    firsts as (
      select distinct on (order_num) order_num, received_at, event_id
      from bench_events where chatbot_id = $1 and received_at <= $3 and event = 'purchase' and order_num <> '' and not is_bot
      order by order_num, received_at, event_id),
    counted as (
      select pe.at, pe.token, pe.revenue from pe left join firsts f on f.order_num = pe.order_num
      where pe.order_num = '' or (f.received_at = pe.at and f.event_id = pe.event_id))`;

const PG_PURCHASES = `
    with v as (
      select token, bool_or(event = 'convo_started') chatted, min(received_at) filter (where event = 'convo_started') first_chat
      from bench_events e
      where chatbot_id = $1 and received_at between $2 and $3 and event in ('visitor', 'convo_started') and not is_bot and ${fresh('e')}
      group by token having bool_or(event = 'visitor')),
    ${COUNTED_PURCHASES},
    p as (select c.token, c.revenue, (v.chatted and c.at > v.first_chat) as after_chat
          from counted c join v on v.token = c.token)
    select (select count(*) from v) total_users, (select count(*) from v where chatted) chatted,
           count(distinct token) purchased, count(distinct token) filter (where after_chat) chatted_purchased,
           coalesce(sum(revenue), 0) revenue, coalesce(sum(revenue) filter (where after_chat), 0) revenue_after,
           coalesce(sum(revenue) filter (where not after_chat), 0) revenue_other,
           count(*) orders, count(*) filter (where after_chat) orders_after
    from p`;

/** The A/B block, a second query on PostgreSQL (ClickHouse reads it in the purchases query). */
export const PG_AB_TEST = `
    with g as (
      select token, bool_or(ab_group = 'control') in_control, bool_or(ab_group = 'test') in_test
      from bench_events e
      where chatbot_id = $1 and received_at between $2 and $3
        and (event = 'visitor' or ab_group in ('control', 'test')) and not is_bot and ${fresh('e')}
      group by token having bool_or(event = 'visitor') and (bool_or(ab_group = 'control') or bool_or(ab_group = 'test'))),
    ${COUNTED_PURCHASES},
    bt as (select token, count(*) orders, sum(revenue) revenue from counted group by token)
    select count(*) filter (where g.in_control) control_visitors, coalesce(sum(bt.orders) filter (where g.in_control), 0) control_orders,
           count(*) filter (where g.in_control and bt.orders > 0) control_purchasers, coalesce(sum(bt.revenue) filter (where g.in_control), 0) control_revenue,
           count(*) filter (where g.in_test) test_visitors, coalesce(sum(bt.orders) filter (where g.in_test), 0) test_orders,
           count(*) filter (where g.in_test and bt.orders > 0) test_purchasers, coalesce(sum(bt.revenue) filter (where g.in_test), 0) test_revenue
    from g left join bt on bt.token = g.token`;

export const PG_QUERIES: Record<string, string[]> = {
  engagement: [`
    select count(*) filter (where v) as total_users, count(*) filter (where v and a) as approached,
           count(*) filter (where v and o) as opened, count(*) filter (where v and c) as chatted
    from (select token, bool_or(event = 'visitor') v, bool_or(event = 'popup_displayed') a,
                 bool_or(event = 'bot_open') o, bool_or(event = 'convo_started') c
          from bench_events e
          where chatbot_id = $1 and received_at between $2 and $3
            and event in ('visitor', 'popup_displayed', 'bot_open', 'convo_started') and not is_bot and ${fresh('e')}
          group by token) t`],
  'popup-metrics': [`
    select case when popup_version = '' then 'unknown' else popup_version end as version,
           count(distinct event_id) filter (where event = 'popup_displayed') as displayed,
           count(distinct event_id) filter (where event = 'popup_opened') as opened
    from bench_events e
    where chatbot_id = $1 and received_at between $2 and $3 and event in ('popup_displayed', 'popup_opened') and not is_bot and ${fresh('e')}
    group by 1 order by (case when popup_version = '' then 'unknown' else popup_version end) collate "C"`, `
    select count(distinct event_id) as total,
           count(distinct event_id) filter (where open_way = 'popup') as from_popup,
           count(distinct event_id) filter (where open_way = 'chat_button') as from_chat_button
    from bench_events e
    where chatbot_id = $1 and received_at between $2 and $3 and event = 'convo_started' and not is_bot and ${fresh('e')}`],
  purchases: [PG_PURCHASES],
  // What an A/B chatbot's purchases answer costs: the funnel and the A/B block.
  'purchases ab_test': [PG_PURCHASES, PG_AB_TEST],
  'insights-events': [`
    select count(distinct event_id) filter (where event = 'click_through') clicks,
           count(distinct event_id) filter (where event = 'message_like') likes,
           count(distinct event_id) filter (where event = 'message_dislike') dislikes
    from bench_events e
    where chatbot_id = $1 and received_at between $2 and $3
      and event in ('click_through', 'message_like', 'message_dislike') and not is_bot and ${fresh('e')}`],
};

export interface BenchPostgres {
  kind: string;
  exec(sql: string): Promise<void>;
  query(sql: string, params: unknown[]): Promise<Record<string, unknown>[]>;
  /** Load the CSV file (no header) into bench_events. */
  load(csvFile: string): Promise<void>;
  close(): Promise<void>;
}

/** A throw-away database on the server of `url` (dropped on close). */
export async function serverPostgres(url: string): Promise<BenchPostgres> {
  const name = `chatlytics_bench_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const u = new URL(url);
  u.pathname = `/${name}`;
  const client = new pg.Client({ connectionString: u.toString() });
  await client.connect();
  // The CSV's times carry no zone: they are UTC, as in ClickHouse.
  await client.query(`set timezone to 'UTC'`);
  return {
    kind: `PostgreSQL server (${u.host})`,
    exec: async (sql) => { await client.query(sql); },
    query: async (sql, params) => (await client.query(sql, params)).rows,
    // Server-side COPY reads the file itself: the benchmark runs on the database's machine.
    load: async (file) => { await client.query(`copy bench_events (${PG_COLUMNS.join(', ')}) from '${file}' with (format csv, null '\\N')`); },
    async close() {
      await client.end();
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

/** PGlite (when DATABASE_URL is unset), in a temporary directory. */
export async function embeddedPostgres(dir: string): Promise<BenchPostgres> {
  const db = await PGlite.create(dir);
  await db.exec(`set timezone to 'UTC'`);
  return {
    kind: 'PGlite (embedded)',
    exec: async (sql) => { await db.exec(sql); },
    query: async (sql, params) => (await db.query<Record<string, unknown>>(sql, params)).rows,
    async load(file) {
      // PGlite copies from an in-memory blob: feed it in bounded chunks of lines.
      const lines = readline.createInterface({ input: fs.createReadStream(file) });
      let chunk: string[] = [];
      const flush = async () => {
        if (chunk.length === 0) return;
        await db.query(`copy bench_events (${PG_COLUMNS.join(', ')}) from '/dev/blob' with (format csv, null '\\N')`, [], { blob: new Blob([chunk.join('\n') + '\n']) });
        chunk = [];
      };
      for await (const line of lines) {
        chunk.push(line);
        if (chunk.length >= 200_000) await flush();
      }
      await flush();
    },
    close: async () => { await db.close(); },
  };
}

/**
 * The events of `engine` copied into PostgreSQL (a throw-away database on DATABASE_URL's server,
 * or PGlite in `dir` when it is unset) through a CSV file in `dir`, and indexed.
 */
export async function loadPostgres(engine: ClickHouseEngine, dir: string, report: Report): Promise<BenchPostgres> {
  const csv = path.join(dir, 'events.csv');
  await engine.command(`SELECT ${PG_COLUMNS.join(', ')} FROM events INTO OUTFILE '${csv}' FORMAT CSV`);
  // The PostgreSQL server process (another OS user) reads it for COPY: open the way to it.
  fs.chmodSync(dir, 0o755);
  fs.chmodSync(csv, 0o644);
  const pgdb = process.env.DATABASE_URL ? await serverPostgres(process.env.DATABASE_URL) : await embeddedPostgres(path.join(dir, 'pglite'));
  const started = performance.now();
  await pgdb.exec(PG_TABLE_DDL);
  await pgdb.load(csv);
  for (const ddl of PG_INDEX_DDL) await pgdb.exec(ddl);
  fs.rmSync(csv);
  report.text(`${pgdb.kind}: loaded and indexed in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return pgdb;
}
