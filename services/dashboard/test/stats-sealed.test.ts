/**
 * The sealed hours (migrations 0050, 0060, 0070) change how engagement, popup-metrics, purchases
 * (with its A/B block), the insights events and the daily series are read, never what they
 * say: for generated scenarios, each equals the oracle (the statistics definitions in services/dashboard/README.md
 * read in TypeScript) with nothing sealed, with every complete
 * hour sealed, after rows arrive in sealed hours (the seal no longer matches: read from
 * events), and after sealing again, on both ClickHouse engines.
 */
import t, { type Test } from 'tap';
import { clickhouseTime, sealHours, sqlFile, type ClickHouseEngine } from '@chatlytics/clickhouse';
import { formatReceivedAt, type StoredEvent } from '@chatlytics/events';
import { createRng, generateEvents, parseChTime } from '@chatlytics/testkit';
import { createEventStatsRepository, readSealedRun, statsQueryParams } from '../src/stats/event-stats-repository.js';
import { createKeptRuns } from '../src/stats/kept-runs.js';
import { RETRY_LOOKBACK_SECONDS } from '../src/stats/retry-lookback.js';
import { createSealer, SEALER_LOCK_KEY } from '../src/stats/sealer.js';
import { daysWindow, type StatsWindow } from '../src/stats/timeframe.js';
import { insertEvents, openClickHouse, silentLog } from './stats-fixtures.js';
import { oracleEngagement, oracleInsights, oraclePopupMetrics } from './stats-oracle.js';
import { isKept, isSettled, oraclePurchaseFields, purchaseFunnelOf, purchasesOf, seriesOf } from './stats-sealed-helpers.js';

// Five statistics × 6 seeds × 3 windows × 2 engines × 6 phases: ~2 minutes alone on a fast day,
// ~6 on a slow one (machine speed 3–4 s, README), and ~10 beside another file.
t.setTimeout(1_200_000);

const SEEDS = Number(process.env.STATS_SEEDS ?? 6);
const NOW = Date.parse('2026-05-20T12:34:56.789Z');
const TIMEFRAMES = [1, 7, 30];
const HOUR = 3_600_000;
const RACED_CHAT_AT = NOW - 4 * 24 * HOUR - 2 * HOUR;
const RACED_WINDOW = { from: new Date(RACED_CHAT_AT - 50 * 60_000), to: new Date(RACED_CHAT_AT + 3 * HOUR) };
// A window whose first, partial hour holds a conversation's copy counting in it (its original
// three days before): the sealed purchase after it follows it, which only the unsealed rows say.
const EDGE_FROM = NOW - 6 * 24 * HOUR - 20 * 60_000;
const EDGE_WINDOW = { from: new Date(EDGE_FROM), to: new Date(EDGE_FROM + 4 * HOUR) };

const scenarios = Array.from({ length: SEEDS }, (_, i) => {
  const seed = 101 + i;
  const rng = createRng(seed * 104_729);
  const chatbotId = rng.uuid();
  const events = generateEvents({ seed, now: NOW, chatbotId, otherChatbotIds: [rng.uuid()], boundaryDays: TIMEFRAMES });
  return { seed, chatbotId, events: [...events, ...chatHistoryRows(seed, events.find((e) => e.chatbot_id === chatbotId && !e.is_bot)!, rng)] };
});

/** EDGE_WINDOW's token: a conversation, its copy in the window's first partial hour, a visitor row, a purchase two hours later. */
function edgeCopyRows(token: string, row: (event: string, token: string, t: number, extra?: Partial<StoredEvent>) => StoredEvent) {
  const original = row('convo_started', token, EDGE_FROM - 3 * 24 * HOUR, { open_way: 'popup' });
  return [original, { ...original, received_at: formatReceivedAt(new Date(EDGE_FROM + 5 * 60_000)) }, row('visitor', token, EDGE_FROM + 6 * 60_000),
    row('purchase', token, EDGE_FROM + 2 * HOUR, { total_value: 6, total_value_base: 6 })];
}

/**
 * Conversations a purchase must see from other hours (migration 0070): a copy received four
 * days after its original (counted in the 7-day window, where the original is before the window
 * and its look-back day; its hour unsealable), then a sealed purchase in the next hour; and a
 * conversation in a sealed hour, then a purchase in the hour not sealed yet (NOW's).
 */
function chatHistoryRows(seed: number, base: StoredEvent, rng: ReturnType<typeof createRng>): StoredEvent[] {
  const row = (event: string, token: string, t: number, extra: Partial<StoredEvent> = {}): StoredEvent =>
    ({ ...base, event_id: rng.uuid(), event, token, received_at: formatReceivedAt(new Date(t)), ab_group: null, order_num: '', ...extra });
  const copied = `chat-copy-${seed}`;
  const original = row('convo_started', copied, NOW - 9 * 24 * HOUR, { open_way: 'popup' });
  const returning = `chat-then-buy-${seed}`;
  return [
    row('visitor', copied, NOW - 5 * 24 * HOUR - HOUR), original,
    { ...original, received_at: formatReceivedAt(new Date(NOW - 5 * 24 * HOUR - 90 * 60_000)) },
    row('purchase', copied, NOW - 5 * 24 * HOUR + 10 * 60_000, { total_value: 3, total_value_base: 3 }),
    row('visitor', returning, NOW - 3 * HOUR), row('convo_started', returning, NOW - 3 * HOUR + 60_000, { open_way: 'chat_button' }),
    row('purchase', returning, NOW - 10 * 60_000, { total_value: 4, total_value_base: 4 }),
    ...edgeCopyRows(`edge-copy-${seed}`, row),
    // The purchase a conversation arriving later (`raced`) precedes.
    row('visitor', `raced-${seed}`, RACED_CHAT_AT - 30 * 60_000), row('purchase', `raced-${seed}`, RACED_CHAT_AT + 2 * HOUR, { total_value: 5, total_value_base: 5 }),
  ];
}

const ch = await openClickHouse();
t.teardown(() => ch.close());
await insertEvents(ch.embedded, scenarios.flatMap((s) => s.events));

/** Every windowed statistic of `events` for every scenario and timeframe on both engines, against the oracle over `events`. */
async function matchesOracle(t: Test, label: string, events: (s: (typeof scenarios)[number]) => StoredEvent[]) {
  for (const [name, engine] of [['embedded', ch.embedded], ['server', ch.server]] as const) {
    // Asked on every call: the test seals between calls.
    const repo = createEventStatsRepository(engine, { sealedChatbotsTtlMs: 0 });
    for (const s of scenarios) {
      for (const days of TIMEFRAMES) {
        const w = daysWindow(days, new Date(NOW));
        const expected = oracleEngagement(events(s), s.chatbotId, w.from.getTime(), w.to.getTime());
        const { total_users, total_users_approached, total_users_opened, total_users_chatted } = expected;
        t.same(await repo.engagement(s.chatbotId, w), { total_users, total_users_approached, total_users_opened, total_users_chatted },
          `${label}: ${name}, engagement, seed ${s.seed}, ${days} day(s)`);
        const popups = oraclePopupMetrics(events(s), s.chatbotId, w.from.getTime(), w.to.getTime());
        t.same(await repo.popupMetrics(s.chatbotId, w), {
          rows: popups.metrics.map(({ open_rate: _, ...r }) => r),
          conversations: { total: popups.conversations.total, from_popup: popups.conversations.from_popup, from_chat_button: popups.conversations.from_chat_button },
        }, `${label}: ${name}, popup-metrics, seed ${s.seed}, ${days} day(s)`);
        const purchases = oraclePurchaseFields(events(s), s.chatbotId, w);
        t.same(await purchasesOf(repo, s.chatbotId, w), purchases, `${label}: ${name}, purchases, seed ${s.seed}, ${days} day(s)`);
        if (days === TIMEFRAMES.at(-1)) {
          // Through sealed hours the funnel is the purchases query's (its rows-only query: stats-oracle.test.ts): one window suffices.
          const { ab_test: _, ...funnel } = purchases;
          t.same(await purchaseFunnelOf(repo, s.chatbotId, w), funnel, `${label}: ${name}, purchase funnel, seed ${s.seed}, ${days} day(s)`);
        }
        const insights = oracleInsights([], events(s), s.chatbotId, w.from.getTime(), w.to.getTime(), 'https://app.example.test');
        t.same(await repo.insightsEvents(s.chatbotId, w),
          { total_click_throughs: insights.total_click_throughs, likes: insights.reactions.likes, dislikes: insights.reactions.dislikes },
          `${label}: ${name}, insights events, seed ${s.seed}, ${days} day(s)`);
        const series = await seriesOf(repo, events(s), s.chatbotId, w);
        t.same(series.actual, series.wanted, `${label}: ${name}, timeseries, seed ${s.seed}, ${days} day(s)`);
      }
      // Purchases around the raced purchase, a window of its own: with a late arrival only the
      // general query sees that the raced conversation precedes it.
      t.same(await purchasesOf(repo, s.chatbotId, RACED_WINDOW), oraclePurchaseFields(events(s), s.chatbotId, RACED_WINDOW),
        `${label}: ${name}, purchases around the raced purchase, seed ${s.seed}`);
      t.same(await purchasesOf(repo, s.chatbotId, EDGE_WINDOW), oraclePurchaseFields(events(s), s.chatbotId, EDGE_WINDOW),
        `${label}: ${name}, purchases after a copy in the window's first partial hour, seed ${s.seed}`);
    }
  }
}

/** How many (scenario, window) pairs, each timeframe and the raced window, pass `test` (a stats-sealed-helpers.ts check). */
async function countWindows(test: (engine: ClickHouseEngine, chatbotId: string, w: StatsWindow) => Promise<boolean>) {
  let n = 0;
  for (const s of scenarios) {
    for (const w of [...TIMEFRAMES.map((days) => daysWindow(days, new Date(NOW))), RACED_WINDOW]) {
      if (await test(ch.embedded, s.chatbotId, w)) n++;
    }
  }
  return n;
}
/** The pairs the repository reads as settled sealed runs (stats_purchases_sealed_settled.sql). */
const settledCount = () => countWindows(isSettled);
/** The pairs whose current sealed run is kept for purchases (migration 0090). */
const keptCount = () => countWindows(isKept);

const sealedCount = async () => Number((await ch.embedded.query<{ n: string }>(
  'SELECT count() AS n FROM token_hour_sets FINAL WHERE unsealable = 0'))[0].n);
// The generated hours are small: sealed whatever their size (production leaves small hours as rows).
const seal = () => sealHours(ch.embedded, { before: new Date(NOW), lookbackSeconds: RETRY_LOOKBACK_SECONDS, minRows: 1 });

t.test('nothing sealed: every row read from events', async (t) => {
  t.equal((await sealHours(ch.embedded, { before: new Date(NOW), lookbackSeconds: RETRY_LOOKBACK_SECONDS })).hours, 0,
    'hours below MIN_SEAL_ROWS are not sealed by default');
  t.equal(await sealedCount(), 0);
  await matchesOracle(t, 'unsealed', (s) => s.events);
});

t.test('every complete hour sealed', async (t) => {
  const run = await seal();
  t.ok(run.hours > 0 && run.chatbots >= SEEDS, `${run.hours} hours of ${run.chatbots} chatbots sealed`);
  t.ok(await sealedCount() > 0.9 * run.hours, 'almost every sealed hour usable (the rest hold old copies)');
  t.equal((await seal()).hours, 0, 'a second run finds nothing to do');
  await matchesOracle(t, 'sealed', (s) => s.events);
});

/**
 * token_id_index (migration 0080): the ids of the unsealed rows' tokens come from it, so a sealed
 * hour is used only while it holds the hour's ids. Lost (a TRUNCATE, as a server that could not
 * reload it) or behind (its mark moved back): those hours are read as rows, the answers unchanged,
 * and the sealer's next run indexes the ids again without sealing anything.
 */
t.test('the token id index lost or behind: its hours read as rows until the sealer indexes again', async (t) => {
  const ids = async () => (await ch.embedded.query<{ ids: string; indexed: string }>(
    "SELECT count() AS ids, countIf(joinGet('token_id_index', 'id', chatbot_id, token) = id) AS indexed FROM token_ids"))[0];
  const w = daysWindow(7, new Date(NOW));
  const sealedHours = async (chatbotId: string) =>
    (await ch.embedded.query<{ hours: string[] }>(sqlFile('stats_sealed_hours'), statsQueryParams(chatbotId, w)))[0]?.hours.length ?? 0;
  // The usable sealed hours whose ids are all within the mark (e.g. hours of bot rows only: none).
  const withinMark = async (chatbotId: string, mark = 0) => Number((await ch.embedded.query<{ n: string }>(
    'SELECT countIf(max_id <= {mark:UInt32} AND unsealable = 0) AS n FROM token_hour_sets FINAL WHERE chatbot_id = {c:String} AND hour >= {from:DateTime64(3)} AND hour < {to:DateTime64(3)}',
    { c: chatbotId, mark, from: clickhouseTime(w.from.getTime()), to: clickhouseTime(w.to.getTime() - HOUR) }))[0].n);
  const [first] = scenarios;
  const before = await ids();
  t.equal(before.indexed, before.ids, 'every assigned id indexed, under its token');
  const usable = await sealedHours(first.chatbotId);
  t.ok(usable > 0, `${usable} sealed hours in the 7-day window`);

  await ch.embedded.command('TRUNCATE TABLE token_id_index');
  t.equal(await sealedHours(first.chatbotId), await withinMark(first.chatbotId), 'index lost: only the sealed hours without ids used');
  await matchesOracle(t, 'index lost', (s) => s.events);
  t.equal((await seal()).hours, 0, 'the next run seals nothing');
  t.same(await ids(), before, 'and indexes every id again');
  t.equal(await sealedHours(first.chatbotId), usable, 'the sealed hours are used again');

  await ch.embedded.command("INSERT INTO token_id_index VALUES ({c:String}, ' indexed', 0, 1)", { c: first.chatbotId });
  t.equal(await sealedHours(first.chatbotId), await withinMark(first.chatbotId, 1), 'mark behind: the hours holding later ids not used');
  t.same((await purchasesOf(createEventStatsRepository(ch.server, { sealedChatbotsTtlMs: 0 }), first.chatbotId, w)),
    oraclePurchaseFields(first.events, first.chatbotId, w), 'answers unchanged (server engine)');
  await seal();
  t.equal(await sealedHours(first.chatbotId), usable, 'the next run moves the mark back up');
});

/**
 * Late rows that change sealed purchases without touching their hours: an earlier purchase row of
 * an order whose first row was sealed (in W, and before the 7-day window's start: either way
 * the sealed one no longer counts), and a conversation before a purchase of a token that had
 * not chatted (that purchase becomes after chat). Both must show at once: the first chats are
 * looked up when read, and so are the purchase rows that arrived since the sealer last checked
 * the sealed orders (after its next run, the hours it sealed again say it).
 */
function latePurchaseRows(s: (typeof scenarios)[number], row: (event: string, token: string, t: number, extra?: Partial<StoredEvent>) => StoredEvent) {
  const mine = s.events.filter((e) => e.chatbot_id === s.chatbotId && !e.is_bot);
  const at = (e: StoredEvent) => parseChTime(e.received_at);
  const purchases = mine.filter((e) => e.event === 'purchase' && at(e) < NOW - 3 * HOUR).sort((a, b) => at(b) - at(a));
  const ordered = purchases.filter((e) => e.order_num !== '');
  const [recent, older] = [ordered[0], ordered.find((e) => at(e) > NOW - 6 * 24 * HOUR && at(e) < NOW - 2 * 24 * HOUR)];
  const chattedTokens = new Set(mine.filter((e) => e.event === 'convo_started').map((e) => e.token));
  const unchatted = purchases.find((e) => !chattedTokens.has(e.token) && mine.some((v) => v.event === 'visitor' && v.token === e.token));
  const rows: StoredEvent[] = [];
  if (recent) rows.push(row('purchase', recent.token, at(recent) - 2 * HOUR, { order_num: recent.order_num, total_value: 1, total_value_base: 1 }));
  if (older) rows.push(row('purchase', older.token, NOW - 8 * 24 * HOUR, { order_num: older.order_num, total_value: 2, total_value_base: 2 }));
  if (unchatted) rows.push(row('convo_started', unchatted.token, at(unchatted) - 90 * 60_000, { open_way: 'popup' }));
  return rows;
}

// New visitors and kinds of events in hours that were sealed, copies, and a bot: each changes
// an hour's rows, so its seal no longer matches and the hour is read raw until sealed again.
const late = new Map(scenarios.map((s) => {
  const rng = createRng(s.seed);
  const at = (hoursAgo: number) => NOW - hoursAgo * HOUR - 1_000;
  const base = s.events.find((e) => e.chatbot_id === s.chatbotId && !e.is_bot)!;
  const row = (event: string, token: string, t: number, extra: Partial<StoredEvent> = {}): StoredEvent =>
    ({ ...base, event_id: rng.uuid(), event, token, received_at: formatReceivedAt(new Date(t)), ...extra });
  const newcomer = `late-${s.seed}-visitor`;
  const copied = s.events.find((e) => e.chatbot_id === s.chatbotId && !e.is_bot && e.event === 'visitor' && parseChTime(e.received_at) < NOW - 3 * HOUR)!;
  // Retried beacons on tokens of their own. A copy inside the 7-day window of a visit in its
  // look-back day: not counted there, and never in a window holding its whole hour (left out
  // of the seal). A copy three days after its original: counted in the 1-day window only, a
  // verdict that depends on the window (its hour is unsealable).
  const retried = row('visitor', `retry-${s.seed}`, at(7 * 24 + 2));
  const old = row('visitor', `old-copy-${s.seed}`, at(3 * 24));
  return [s.seed, [
    retried, { ...retried, received_at: formatReceivedAt(new Date(at(7 * 24 - 3))) },
    old, { ...old, received_at: formatReceivedAt(new Date(at(24 - 2))) },
    row('visitor', newcomer, at(5)), row('convo_started', newcomer, at(30)),
    row('popup_displayed', base.token, at(2)),
    { ...copied, received_at: formatReceivedAt(new Date(parseChTime(copied.received_at) + 60_000)) },
    row('visitor', 'late-crawler', at(3), { is_bot: true }),
    // The key of token_id_index's mark as a token (a stored row past the ingest's pattern): no id.
    row('visitor', ' indexed', at(4)), row('convo_started', ' indexed', at(4) + 60_000), row('visitor', ' indexed', NOW - 600_000),
    ...latePurchaseRows(s, row),
  ]];
}));

t.test('rows arriving in sealed hours: those hours read raw', async (t) => {
  const added = [...late.values()].flat();
  t.ok(added.filter((e) => e.event === 'purchase').length >= SEEDS, 'earlier purchase rows of sealed orders');
  t.ok(added.some((e) => e.event === 'convo_started' && e.open_way === 'popup'), 'a conversation before a sealed purchase');
  await insertEvents(ch.embedded, added);
  await matchesOracle(t, 'stale', (s) => [...s.events, ...late.get(s.seed)!]);
});

t.test('sealed again', async (t) => {
  const run = await seal();
  t.ok(run.hours >= SEEDS, `${run.hours} hours resealed`);
  t.ok(run.rechecked > 0, `${run.rechecked} hours resealed for a row arriving before a sealed purchase (their own rows unchanged)`);
  await matchesOracle(t, 'resealed', (s) => [...s.events, ...late.get(s.seed)!]);
});

t.test('checked: nothing left for a statistic to look up, the resealed hours alone say it', async (t) => {
  // No margin (nothing is inserted meanwhile): the check covers every arrival so far.
  const run = await sealHours(ch.embedded, { before: new Date(NOW), lookbackSeconds: RETRY_LOOKBACK_SECONDS, minRows: 1, arrivalMarginMs: 0 });
  t.same([run.hours, run.rechecked], [0, 0], 'nothing to seal again');
  const [{ n }] = await ch.embedded.query<{ n: string }>(
    'SELECT count() AS n FROM sealed_hour_arrivals WHERE arrived_at >= (SELECT max(checked_until) FROM sealed_purchases_checked)');
  t.equal(Number(n), 0, 'no arrival left since the check');
  t.equal(await settledCount(), SEEDS * (TIMEFRAMES.length + 1), 'every window read by the settled variant');
  t.equal(await keptCount(), 0, 'no run kept before it is read');
  for (const s of scenarios) {
    const edge = await readSealedRun(ch.embedded, s.chatbotId, EDGE_WINDOW);
    t.ok(edge?.settled && edge.params.holes.length === 0, `seed ${s.seed}: the edge window's run settled, no holes (stats_purchases_cached.sql)`);
  }
  await matchesOracle(t, 'checked', (s) => [...s.events, ...late.get(s.seed)!]);
  for (const s of scenarios) t.ok(await isKept(ch.embedded, s.chatbotId, EDGE_WINDOW), `seed ${s.seed}: the edge window's run kept`);
  t.equal(await keptCount(), SEEDS * (TIMEFRAMES.length + 1), 'every window\'s run kept by its first read, and read from there after');
});

t.test('a kept run dropped (expired, rollups:rebuild) while a repository holds its build: kept again, answers unchanged', async (t) => {
  const [s] = scenarios;
  const w = daysWindow(7, new Date(NOW));
  const all = [...s.events, ...late.get(s.seed)!];
  for (const [name, engine] of [['embedded', ch.embedded], ['server', ch.server]] as const) {
    const repo = createEventStatsRepository(engine, { sealedChatbotsTtlMs: 0 });
    t.same(await purchasesOf(repo, s.chatbotId, w), oraclePurchaseFields(all, s.chatbotId, w), `${name}: read from the kept run`);
    await ch.embedded.command('TRUNCATE TABLE sealed_runs');
    t.notOk(await isKept(ch.embedded, s.chatbotId, w), `${name}: dropped`);
    t.same(await purchasesOf(repo, s.chatbotId, w), oraclePurchaseFields(all, s.chatbotId, w), `${name}: the same answer`);
    t.ok(await isKept(ch.embedded, s.chatbotId, w), `${name}: kept again`);
  }
  await matchesOracle(t, 'kept again', (s) => [...s.events, ...late.get(s.seed)!]);
});

t.test('a run sealed again while it is being kept: not kept under its old fingerprint', async (t) => {
  const [s] = scenarios;
  const w = daysWindow(30, new Date(NOW));
  const sealed = await readSealedRun(ch.embedded, s.chatbotId, w);
  t.ok(sealed?.settled, 'a settled run');
  const stale = (BigInt(sealed!.run) ^ 1n).toString();
  const kept = createKeptRuns(ch.embedded);
  t.equal(await kept.purchases({ ...statsQueryParams(s.chatbotId, w), ...sealed!.params, run: stale }), null, 'not read from a run that is not there');
  const [{ n }] = await ch.embedded.query<{ n: string }>('SELECT count() AS n FROM sealed_runs WHERE run = {run:UInt64}', { run: stale });
  t.equal(Number(n), 0, 'nothing kept under the stale fingerprint');
});

// A conversation before a sealed purchase, arriving while a sealer run is under way: after that
// run checked the arrivals and before it sealed the conversation's hour (stale by then).
const raced = new Map(scenarios.map((s) => {
  const base = s.events.find((e) => e.chatbot_id === s.chatbotId && !e.is_bot)!;
  return [s.seed, [{ ...base, event_id: createRng(s.seed + 7).uuid(), event: 'convo_started', token: `raced-${s.seed}`, ab_group: null,
    order_num: '', open_way: 'popup', received_at: formatReceivedAt(new Date(RACED_CHAT_AT)) } as StoredEvent]];
}));

t.test('a conversation arriving during a sealer run: looked up when read until the next run seals the purchase again', async (t) => {
  await insertEvents(ch.embedded, [...raced.values()].flat());
  // What that run did after its check: seal the conversation's hour (the purchase's hour untouched).
  const hour = Math.floor(RACED_CHAT_AT / HOUR) * HOUR;
  for (const s of scenarios) {
    const params = { chatbot_id: s.chatbotId, hours: [hour / 1000], lo: clickhouseTime(hour), hi: clickhouseTime(hour + HOUR), lookback_s: RETRY_LOOKBACK_SECONDS };
    await ch.embedded.command(sqlFile('seal/assign_token_ids'), params);
    await ch.embedded.command(sqlFile('seal/seal_hours'), params);
  }
  const all = (s: (typeof scenarios)[number]) => [...s.events, ...late.get(s.seed)!, ...raced.get(s.seed)!];
  t.equal(await settledCount(), 0, 'a late arrival before every run\'s end: no run settled');
  const keptRows = async () => Number((await ch.embedded.query<{ n: string }>('SELECT count() AS n FROM sealed_runs'))[0].n);
  const before = await keptRows();
  await matchesOracle(t, 'raced', all);
  t.equal(await keptRows(), before, 'a run not settled is not kept');
  const run = await sealHours(ch.embedded, { before: new Date(NOW), lookbackSeconds: RETRY_LOOKBACK_SECONDS, minRows: 1, arrivalMarginMs: 0 });
  t.ok(run.rechecked > 0, `${run.rechecked} hours of purchases after it sealed again`);
  t.equal(await settledCount(), SEEDS * (TIMEFRAMES.length + 1), 'settled again');
  await matchesOracle(t, 'raced, checked', all);
  t.equal(await keptCount(), SEEDS * (TIMEFRAMES.length + 1), 'the runs sealed again kept once settled');
});

t.test('the dashboard\'s sealer: a run when started, none while another holds the lock, stop waits for its run', async (t) => {
  await ch.embedded.command('TRUNCATE TABLE token_hour_sets');
  const base = { clickhouse: ch.embedded, log: silentLog, clock: () => new Date(NOW), intervalMs: 60_000, minRows: 1 };
  const locked = createSealer({ ...base, postgres: { exclusive: async () => undefined } });
  locked.start();
  await new Promise((resolve) => setTimeout(resolve, 200));
  await locked.stop();
  t.equal(await sealedCount(), 0, 'lock held elsewhere: nothing sealed');

  const held: number[] = [];
  const sealer = createSealer({ ...base, postgres: { exclusive: async (key, job) => { held.push(key); return job(); } } });
  sealer.start();
  while (held.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
  await sealer.stop();
  t.same(held, [SEALER_LOCK_KEY], 'one run, under the sealer\'s lock');
  t.ok(await sealedCount() > 0, 'its run sealed the hours before stop() returned');
  await matchesOracle(t, 'sealed by the sealer', (s) => [...s.events, ...late.get(s.seed)!, ...raced.get(s.seed)!]);
});

t.test('the sealer keeps the sealed runs of the windows it is told, for the chatbots it sealed', async (t) => {
  await ch.embedded.command('TRUNCATE TABLE token_hour_sets');
  await ch.embedded.command('TRUNCATE TABLE sealed_runs');
  const sealer = createSealer({
    clickhouse: ch.embedded, log: silentLog, clock: () => new Date(NOW), intervalMs: 60_000, minRows: 1, keepRunsOfDays: TIMEFRAMES,
    postgres: { exclusive: async (_key, job) => job() },
  });
  const everyRunKept = async () => {
    for (const s of scenarios) {
      for (const days of TIMEFRAMES) if (!(await isKept(ch.embedded, s.chatbotId, daysWindow(days, new Date(NOW))))) return false;
    }
    return true;
  };
  sealer.start();
  for (const deadline = Date.now() + 120_000; !(await everyRunKept()) && Date.now() < deadline;) await new Promise((resolve) => setTimeout(resolve, 200));
  await sealer.stop();
  t.ok(await everyRunKept(), 'each chatbot\'s run of each window kept before any read');
  const [s] = scenarios;
  const w = daysWindow(30, new Date(NOW));
  t.same(await purchasesOf(createEventStatsRepository(ch.embedded, { sealedChatbotsTtlMs: 0 }), s.chatbotId, w),
    oraclePurchaseFields([...s.events, ...late.get(s.seed)!, ...raced.get(s.seed)!], s.chatbotId, w), 'and read from there');
});

t.test('a settled run with a hole (a visitor arrived in a sealed hour): kept, read with the hole', async (t) => {
  const [s] = scenarios;
  const w = daysWindow(7, new Date(NOW));
  const inHour = s.events.find((e) => e.chatbot_id === s.chatbotId && !e.is_bot && parseChTime(e.received_at) > NOW - 4 * 24 * HOUR && parseChTime(e.received_at) < NOW - 2 * 24 * HOUR)!;
  const visitor = { ...inHour, event_id: createRng(s.seed + 11).uuid(), event: 'visitor', token: `hole-${s.seed}`, ab_group: 'test', order_num: '' } as StoredEvent;
  const holes = async () => (await readSealedRun(ch.embedded, s.chatbotId, w))?.params.holes.length;
  const before = await holes();
  await insertEvents(ch.embedded, [visitor]);
  t.equal(await holes(), before! + 1, 'one hole more');
  t.ok(await isSettled(ch.embedded, s.chatbotId, w), 'still settled (a visitor is no arrival a sealed purchase depends on)');
  await ch.embedded.command('TRUNCATE TABLE sealed_runs');
  const all = [...s.events, ...late.get(s.seed)!, ...raced.get(s.seed)!, visitor];
  for (const engine of [ch.embedded, ch.server]) {
    t.same(await purchasesOf(createEventStatsRepository(engine, { sealedChatbotsTtlMs: 0 }), s.chatbotId, w), oraclePurchaseFields(all, s.chatbotId, w),
      `${engine.kind}: answers as the oracle`);
  }
  t.ok(await isKept(ch.embedded, s.chatbotId, w), 'kept (stats_purchases_cached_holes.sql)');
});
