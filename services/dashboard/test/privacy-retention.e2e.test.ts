/**
 * Retention (README.md, "Personal data") on the real engines (ClickHouse embedded and through the
 * server client, PGlite and a PostgreSQL server): one run deletes exactly the rows
 * past each chatbot's limit (events, narrow tables, orders' first purchases, id mappings of tokens
 * left without rows; conversations with their messages and analyses) and nothing else (set-aside
 * purchases go by the same statement; the table's 90-day TTL keeps this suite's dates out of it); the
 * hourly and daily aggregates of the older days stay, `cli verify`'s check finds no difference,
 * and a second run changes nothing.
 */
import t from 'tap';
import { verifyAggregates, type ClickHouseEngine } from '@chatlytics/clickhouse';
import { DAY_MS } from '@chatlytics/core';
import { accounts, chatbots, conversationAnalyses, conversations, messages } from '@chatlytics/postgres';
import { databaseVariants } from '@chatlytics/postgres/testing';
import { createRng, generateEvents } from '@chatlytics/testkit';
import { sql } from 'drizzle-orm';
import { retentionCutoff, runRetention } from '../src/privacy/index.js';
import { insertEvents, openClickHouse } from './stats-fixtures.js';

const NOW = Date.parse('2026-02-10T08:00:00.000Z');
const rng = createRng(6061);
const IDS = { account: rng.uuid(), bot: rng.uuid(), other: rng.uuid() };
const DAYS = 30;
const CUTOFF = retentionCutoff(new Date(NOW), DAYS);
const events = generateEvents({ now: NOW, otherChatbotIds: [IDS.other], spanDays: 60, seed: 61, chatbotId: IDS.bot, users: 80 });
const chTime = (ms: number) => new Date(ms).toISOString().replace('T', ' ').slice(0, 23);

async function count(ch: ClickHouseEngine, table: string, where: string, params: Record<string, unknown> = {}): Promise<number> {
  return Number((await ch.query<{ n: string }>(`SELECT count() AS n FROM ${table} WHERE ${where}`, params))[0].n);
}

// Both ClickHouse engines on PGlite, the embedded one on a PostgreSQL server.
const [pglite, server] = databaseVariants();
const cases: { variant: typeof pglite; engine: 'embedded' | 'server' }[] = [
  { variant: pglite, engine: 'embedded' }, { variant: pglite, engine: 'server' }, { variant: server, engine: 'embedded' },
];

for (const { variant, engine } of cases) {
  t.test(`retention (${variant.name}, ClickHouse ${engine})`, { skip: variant.skip }, async (t) => {
    const tdb = await variant.open();
    t.teardown(() => tdb.destroy());
    const store = await openClickHouse();
    t.teardown(() => store.close());
    await insertEvents(store.embedded, events);
    const clickhouse = store[engine];
    const db = tdb.postgres.db;
    await db.insert(accounts).values({ id: IDS.account, name: 'Shop' });
    await db.insert(chatbots).values([{ id: IDS.bot, accountId: IDS.account, name: 'Bot', retentionDays: DAYS }, { id: IDS.other, accountId: IDS.account, name: 'Other' }]);
    const convo = (ageDays: number, bot = IDS.bot) => ({ id: rng.uuid(), chatbotId: bot, startedAt: new Date(NOW - ageDays * DAY_MS), updatedAt: new Date(NOW - ageDays * DAY_MS), visitorToken: 'tok_someone' });
    const convos = [convo(45), convo(31), convo(29), convo(2), convo(45, IDS.other)];
    await db.insert(conversations).values(convos);
    await db.insert(messages).values(convos.map((c) => ({ conversationId: c.id, role: 'user' as const, content: 'hello', createdAt: c.startedAt })));
    await db.insert(conversationAnalyses).values(convos.map((c) => ({ conversationId: c.id, mood: 'calm' })));

    const bot = { c: IDS.bot, cutoff: chTime(CUTOFF) };
    const before = {
      kept: await count(clickhouse, 'events', "chatbot_id = {c:String} AND received_at >= {cutoff:DateTime64(3, 'UTC')}", bot),
      old: await count(clickhouse, 'events', "chatbot_id = {c:String} AND received_at < {cutoff:DateTime64(3, 'UTC')}", bot),
      other: await count(clickhouse, 'events', 'chatbot_id != {c:String}', bot),
      purchasesKept: await count(clickhouse, 'purchases', "chatbot_id = {c:String} AND received_at >= {cutoff:DateTime64(3, 'UTC')}", bot),
      oldDaySets: await count(clickhouse, 'token_day_sets', "chatbot_id = {c:String} AND day < toDate({cutoff:DateTime64(3, 'UTC')})", bot),
    };
    t.ok(before.old > 0 && before.kept > 0 && before.oldDaySets > 0, JSON.stringify(before));
    const oldOnly = [...new Set(events.filter((e) => e.chatbot_id === IDS.bot && !e.is_bot && Date.parse(`${e.received_at.replace(' ', 'T')}Z`) < CUTOFF).map((e) => e.token))]
      .filter((tok) => !events.some((e) => e.chatbot_id === IDS.bot && e.token === tok && Date.parse(`${e.received_at.replace(' ', 'T')}Z`) >= CUTOFF));
    t.ok(oldOnly.length > 0, 'some visitors have only rows past the limit');

    const result = await runRetention({ db, clickhouse, clock: () => new Date(NOW) });
    t.same(result, { chatbots: 2, conversations: 2, purgedParts: 0 }, 'the 45- and 31-day-old conversations of the chatbot');

    for (const table of ['events', 'event_copies', 'purchases', 'conversation_starts', 'chat_clicks']) {
      t.equal(await count(clickhouse, table, "chatbot_id = {c:String} AND received_at < {cutoff:DateTime64(3, 'UTC')}", bot), 0, `${table}: nothing past the limit`);
    }
    t.equal(await count(clickhouse, 'order_first_purchases', "chatbot_id = {c:String} AND tupleElement(first, 'at') < {cutoff:DateTime64(3, 'UTC')}", bot), 0);
    t.equal(await count(clickhouse, 'events', "chatbot_id = {c:String} AND received_at >= {cutoff:DateTime64(3, 'UTC')}", bot), before.kept, 'every row within the limit kept');
    t.equal(await count(clickhouse, 'purchases', "chatbot_id = {c:String} AND received_at >= {cutoff:DateTime64(3, 'UTC')}", bot), before.purchasesKept);
    t.equal(await count(clickhouse, 'events', 'chatbot_id != {c:String}', bot), before.other, 'other chatbots untouched (their limit is 395 days)');
    t.equal(await count(clickhouse, 'token_ids', 'chatbot_id = {c:String} AND token IN {t:Array(String)}', { ...bot, t: oldOnly }), 0, 'the id mappings of visitors left without rows');
    t.ok(await count(clickhouse, 'token_ids', 'chatbot_id = {c:String}', bot) > 0, 'the others keep theirs');
    t.equal(await count(clickhouse, 'token_day_sets', "chatbot_id = {c:String} AND day < toDate({cutoff:DateTime64(3, 'UTC')})", bot), before.oldDaySets, 'the older days\' aggregates stay');
    t.same(await verifyAggregates(clickhouse), [], 'verify: no difference');

    const left = await db.select({ id: conversations.id }).from(conversations);
    t.same(left.map((c) => c.id).sort(), [convos[2].id, convos[3].id, convos[4].id].sort(), 'conversations within the limit, and the other chatbot\'s');
    t.equal(Number(((await db.execute(sql`SELECT count(*)::int AS n FROM messages`)) as unknown as { rows: { n: number }[] }).rows[0].n), 3, 'their messages only');
    t.equal((await db.select().from(conversationAnalyses)).length, 3, 'and analyses');

    t.same(await runRetention({ db, clickhouse, clock: () => new Date(NOW) }), { chatbots: 2, conversations: 0, purgedParts: 0 }, 'a second run finds nothing');
    t.equal(await count(clickhouse, 'events', "chatbot_id = {c:String}", bot), before.kept);
  });
}
