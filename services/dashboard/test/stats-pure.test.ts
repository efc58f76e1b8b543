import t from 'tap';
import { percent, ratio, round2 } from '../src/stats/numbers.js';
import { daysWindow, parseInsightsTimeframe, subtractMonths, utcDate } from '../src/stats/window.js';
import { erfc, sampleRatioMismatch, twoProportionPValue, wilsonInterval } from '../src/stats/ab-significance.js';
import { buildAnalysisReport, rankItems, type AnalysedConversation } from '../src/stats/insights-report.js';
import { createInFlight, createResultCache } from '../src/stats/cache.js';
import { checkDateRange, RANGE_MESSAGES, rangeWindow } from '../src/stats/window.js';

t.test('round2: half away from zero on the decimal value, without binary noise', async (t) => {
  t.equal(round2(1.005), 1.01, '1.005 is stored as 1.00499999…; the decimal value rounds up');
  t.equal(round2(2.675), 2.68);
  t.equal(round2(1.004999), 1);
  t.equal(round2(-1.005), -1.01);
  t.equal(round2(33.333333), 33.33);
  t.equal(round2(66.666666), 66.67);
  t.ok(Object.is(round2(-0.001), 0), 'no negative zero');
  t.equal(round2(0.1 + 0.2), 0.3);
  t.equal(round2(Number.NaN), 0);
  t.equal(round2(123456789.125), 123456789.13);
});

t.test('percent and ratio: zero denominators give 0', async (t) => {
  t.equal(percent(1, 3), 33.33);
  t.equal(percent(2, 3), 66.67);
  t.equal(percent(5, 0), 0);
  t.equal(percent(0, 0), 0);
  t.equal(ratio(10, 4), 2.5);
  t.equal(ratio(10, 0), 0);
});

const NOW = new Date('2026-03-31T15:30:45.678Z');
const DAY = 86_400_000;

t.test('daysWindow and utcDate', async (t) => {
  const w = daysWindow(7, NOW);
  t.equal(w.to.getTime(), NOW.getTime());
  t.equal(w.from.getTime(), NOW.getTime() - 7 * DAY);
  t.equal(utcDate(w.from), '2026-03-24');
  t.equal(utcDate(w.to), '2026-03-31');
  t.equal(utcDate(new Date('2026-01-01T00:30:00+02:00')), '2025-12-31', 'UTC day, not the offset\'s');
});

t.test('subtractMonths clamps to the last day of the target month', async (t) => {
  t.equal(subtractMonths(NOW, 1).toISOString(), '2026-02-28T15:30:45.678Z');
  t.equal(subtractMonths(new Date('2024-03-31T00:00:00Z'), 1).toISOString(), '2024-02-29T00:00:00.000Z', 'leap year');
  t.equal(subtractMonths(NOW, 3).toISOString(), '2025-12-31T15:30:45.678Z', 'across a year');
  t.equal(subtractMonths(NOW, 14).toISOString(), '2025-01-31T15:30:45.678Z');
  t.equal(subtractMonths(new Date('2026-05-15T10:00:00Z'), 2).toISOString(), '2026-03-15T10:00:00.000Z');
});

t.test('parseInsightsTimeframe: every format of the statistics definitions in services/dashboard/docs/statistics.md', async (t) => {
  const from = (raw: string) => {
    const r = parseInsightsTimeframe(raw, NOW);
    if (!r.ok) throw new Error(`refused ${raw}: ${r.message}`);
    t.equal(r.window.to.getTime(), NOW.getTime(), `${raw}: window ends now`);
    return r.window.from.getTime();
  };
  const ago = (ms: number) => NOW.getTime() - ms;
  t.equal(from('day'), ago(DAY));
  t.equal(from('week'), ago(7 * DAY));
  t.equal(from('month'), ago(30 * DAY), 'the shortcut month is 30 days');
  t.equal(from('  Week '), ago(7 * DAY), 'trimmed, case-insensitive');
  t.equal(from('20 minutes'), ago(20 * 60_000));
  t.equal(from('1 minute'), ago(60_000));
  t.equal(from('2 hours'), ago(2 * 3_600_000));
  t.equal(from('1 hour'), ago(3_600_000));
  t.equal(from('3 days'), ago(3 * DAY));
  t.equal(from('1 day'), ago(DAY));
  t.equal(from('1 week'), ago(7 * DAY));
  t.equal(from('2 weeks'), ago(14 * DAY));
  t.equal(from('1 month'), Date.parse('2026-02-28T15:30:45.678Z'), 'calendar month, clamped');
  t.equal(from('2 months'), Date.parse('2026-01-31T15:30:45.678Z'));
  t.equal(from('2 MONTHS'), Date.parse('2026-01-31T15:30:45.678Z'));
  t.equal(from('14'), ago(14 * DAY));
  t.equal(from('1'), ago(DAY));
  t.equal(from('january'), Date.UTC(2026, 0, 1));
  t.equal(from('March'), Date.UTC(2026, 2, 1));
  t.equal(from('december'), Date.UTC(2026, 11, 1), 'a month later this year: an empty window, not an error');
});

t.test('parseInsightsTimeframe refuses everything else', async (t) => {
  for (const raw of ['', ' ', 'days', 'yesterday', '0', '-3', '3.5', '0 days', '3 fortnights', '3days', 'a week',
    '2 hours ago', 'jan', 'januaryy', '1e3', '999999999 days', '99999999999999999999', '5000000 months']) {
    const r = parseInsightsTimeframe(raw, NOW);
    t.equal(r.ok, false, JSON.stringify(raw));
  }
});

t.test('erfc against known values', async (t) => {
  // Reference values: Python math.erfc.
  for (const [x, want] of [[0, 1], [0.5, 0.4795001221869535], [1, 0.15729920705028513], [2, 0.004677734981047266], [-1, 1.8427007929497148]]) {
    t.ok(Math.abs(erfc(x) - want) <= 1.2e-7 * want, `erfc(${x})`);
  }
});

t.test('Wilson interval against textbook values', async (t) => {
  const close = (got: { lower: number; upper: number }, lower: number, upper: number, what: string) =>
    t.ok(Math.abs(got.lower - lower) < 1e-9 && Math.abs(got.upper - upper) < 1e-9, `${what}: ${JSON.stringify(got)}`);
  close(wilsonInterval(0, 10), 0, 0.2775327998628892, '0/10');
  close(wilsonInterval(1, 10), 0.017876213095072868, 0.4041500267952385, '1/10');
  close(wilsonInterval(81, 263), 0.2552885198782742, 0.36620957698280004, '81/263');
  close(wilsonInterval(10, 10), 0.7224672001371107, 1, '10/10');
  t.same(wilsonInterval(0, 0), { lower: 0, upper: 0 }, 'no visitors: zero-denominator rule');
});

t.test('two-proportion z-test p-value against known values', async (t) => {
  const near = (got: number, want: number, what: string) => t.ok(Math.abs(got - want) < 1e-6, `${what}: ${got} ≈ ${want}`);
  near(twoProportionPValue(10, 100, 20, 100), 0.04767038065616144, '10% vs 20% of 100');
  near(twoProportionPValue(200, 1000, 230, 1000), 0.10249587537989269, '20% vs 23% of 1000');
  near(twoProportionPValue(20, 100, 10, 100), 0.04767038065616144, 'symmetric');
  t.equal(twoProportionPValue(50, 500, 50, 500), 1, 'equal rates');
  t.equal(twoProportionPValue(0, 10, 0, 10), 1, 'no variance');
  t.equal(twoProportionPValue(1, 0, 1, 10), 1, 'an empty group');
});

t.test('sample-ratio mismatch: chi-square against 50/50, flagged below p = 0.001', async (t) => {
  const near = (got: number, want: number) => Math.abs(got - want) < 1e-7 + 1.2e-7 * want;
  t.same(sampleRatioMismatch(5000, 5000), { pValue: 1, mismatch: false });
  const small = sampleRatioMismatch(5000, 5200);
  t.ok(near(small.pValue, 0.04767038065616144), `5000/5200 p=${small.pValue}`);
  t.equal(small.mismatch, false, 'p = 0.048 is no mismatch at the strict level');
  const edge = sampleRatioMismatch(1000, 1150);
  t.ok(near(edge.pValue, 0.00121649890015552));
  t.equal(edge.mismatch, false, 'p = 0.0012 is just above 0.001');
  const big = sampleRatioMismatch(10000, 10600);
  t.ok(near(big.pValue, 2.9099921115764284e-05));
  t.equal(big.mismatch, true);
  t.same(sampleRatioMismatch(0, 0), { pValue: 1, mismatch: false });
});

const conversation = (id: string, minute: number, patch: Partial<AnalysedConversation> = {}): AnalysedConversation => ({
  id, startedAt: new Date(Date.UTC(2026, 0, 1, 0, minute)), durationMs: 0, clickedProducts: [], talkedAboutProducts: [],
  intents: [], complaints: [], missingInformation: [], mood: null, outcome: null, humanInterventionNeeded: false, converted: false,
  ...patch,
});

t.test('rankItems: trimmed, case-insensitive, first spelling, count desc then item asc, once per conversation', async (t) => {
  const link = (id: string) => `L/${id}`;
  const list = [
    conversation('c3', 3, { intents: ['red shoe', 'Zebra'] }),
    conversation('c1', 1, { intents: [' Red Shoe ', 'RED SHOE', '  ', 'apple'] }),
    conversation('c2', 2, { intents: ['RED SHOE', 'Apple', 'banana', 'Zebra'] }),
  ];
  t.same(rankItems(list, (c) => c.intents, link), [
    { item: 'Red Shoe', count: 3, conversations: ['L/c1', 'L/c2', 'L/c3'] },
    { item: 'Zebra', count: 2, conversations: ['L/c2', 'L/c3'] },
    { item: 'apple', count: 2, conversations: ['L/c1', 'L/c2'] },
    { item: 'banana', count: 1, conversations: ['L/c2'] },
  ], '"Zebra" sorts before "apple" in byte order; the earliest conversation gives the spelling');
  const many = Array.from({ length: 15 }, (_, i) => `item-${String(i).padStart(2, '0')}`);
  const ranked = rankItems([conversation('c', 0, { complaints: many })], (c) => c.complaints, link);
  t.equal(ranked.length, 10, 'at most 10 items');
  t.equal(ranked[9].item, 'item-09');
});

t.test('buildAnalysisReport: percentages, conversion, capped durations, empty report', async (t) => {
  const link = (id: string) => id;
  const report = buildAnalysisReport([
    conversation('a', 1, { mood: 'happy', outcome: 'success', converted: true, durationMs: 30 * 60_000 }),
    conversation('b', 2, { mood: 'happy', outcome: 'fail', humanInterventionNeeded: true, durationMs: 3 * 3_600_000 }),
    conversation('c', 3, { mood: 'angry', outcome: 'neutral', durationMs: 0 }),
  ], link);
  t.same(report.mood_percentages, { happy: 66.67, angry: 33.33, neutral: 0 });
  t.same(report.outcome_percentages, { success: 33.33, fail: 33.33, neutral: 33.33 });
  t.equal(report.human_intervention_needed_percentage, 33.33);
  t.same(report.chat_conversion, { ratio: 33.33, total_conversions: 1, total_conversations: 3 });
  t.equal(report.average_conversation_duration_minutes, 30, '(30 + 60 capped + 0) / 3');
  const empty = buildAnalysisReport([], link);
  t.equal(empty.total_conversations_analyzed, 0);
  t.same(empty.mood_percentages, { happy: 0, angry: 0, neutral: 0 });
  t.same(empty.chat_conversion, { ratio: 0, total_conversions: 0, total_conversations: 0 });
  t.equal(empty.average_conversation_duration_minutes, 0);
});

t.test('result cache: reuse within the TTL, shared in-flight work, failures and TTL 0 not cached, bounded', async (t) => {
  let clock = 0;
  let computed = 0;
  const cache = createResultCache({ ttlMs: 5000, maxEntries: 2, monotonicNow: () => clock });
  const compute = (value: string) => async () => { computed++; return value; };
  const [a, b] = await Promise.all([cache.get('k', compute('first')), cache.get('k', compute('second'))]);
  t.same([a, b, computed], ['first', 'first', 1], 'concurrent identical requests share one computation');
  clock = 4999;
  t.equal(await cache.get('k', compute('third')), 'first', 'still fresh');
  clock = 5000;
  t.equal(await cache.get('k', compute('fourth')), 'fourth', 'expired after the TTL');

  await t.rejects(cache.get('bad', async () => { throw new Error('down'); }));
  t.equal(await cache.get('bad', compute('recovered')), 'recovered', 'a failure is not kept');

  await cache.get('x', compute('x'));
  await cache.get('y', compute('y'));
  const before = computed;
  await cache.get('fourth?', compute('z'));
  await cache.get('k', compute('k again'));
  t.equal(computed, before + 2, 'the oldest entries were evicted beyond maxEntries');

  const off = createResultCache({ ttlMs: 0 });
  let calls = 0;
  await off.get('k', async () => ++calls);
  await off.get('k', async () => ++calls);
  t.equal(calls, 2, 'TTL 0 disables the cache');
});

t.test('checkDateRange and rangeWindow: whole UTC days, every refusal named by its field', async (t) => {
  const now = new Date('2026-03-31T15:30:45.678Z');
  const ok = checkDateRange(' 2026-03-01 ', '2026-03-31', now);
  t.same(ok, { ok: true, range: { from: '2026-03-01', to: '2026-03-31' } }, 'trimmed; today is a valid end');
  const today = rangeWindow({ from: '2026-03-01', to: '2026-03-31' }, now);
  t.same([today.days, today.window.from.toISOString(), today.window.to.toISOString()], [31, '2026-03-01T00:00:00.000Z', now.toISOString()], 'cut at now');
  const past = rangeWindow({ from: '2024-02-28', to: '2024-03-01' }, now);
  t.same([past.days, past.window.to.toISOString()], [3, '2024-03-01T23:59:59.999Z'], 'a leap day counts; the last day to its last millisecond');
  t.ok(checkDateRange('2024-02-29', '2024-02-29', now).ok, 'a real leap day');
  t.same(checkDateRange('2025-03-31', '2026-03-31', now), { ok: true, range: { from: '2025-03-31', to: '2026-03-31' } }, '366 days');
  const refused: [string | undefined, string | undefined, Record<string, string[]>][] = [
    ['2025-03-30', '2026-03-31', { to: [RANGE_MESSAGES.tooLong] }],
    ['2026-03-02', '2026-03-01', { to: [RANGE_MESSAGES.order] }],
    ['2026-03-01', '2026-04-01', { to: [RANGE_MESSAGES.future] }],
    ['2026-04-02', '2026-04-01', { to: [RANGE_MESSAGES.future, RANGE_MESSAGES.order] }],
    ['2025-02-29', '2025-03-01', { from: [RANGE_MESSAGES.format('from')] }],
    ['2026-3-1', '20260301', { from: [RANGE_MESSAGES.format('from')], to: [RANGE_MESSAGES.format('to')] }],
    [undefined, '', { from: [RANGE_MESSAGES.required('from')], to: [RANGE_MESSAGES.required('to')] }],
    ['1899-12-31', '1900-01-01', { from: [RANGE_MESSAGES.tooEarly] }],
  ];
  for (const [from, to, errors] of refused) t.same(checkDateRange(from, to, now), { ok: false, errors }, `${from}..${to}`);
});

t.test('in-flight sharing: concurrent requests share one computation, nothing is kept after it settles', async (t) => {
  const inFlight = createInFlight<string>();
  let computed = 0;
  const compute = (value: string) => async () => { computed++; return value; };
  const [a, b] = await Promise.all([inFlight.get('k', compute('first')), inFlight.get('k', compute('second'))]);
  t.same([a, b, computed], ['first', 'first', 1], 'shared while in flight');
  t.equal(await inFlight.get('k', compute('third')), 'third', 'computed again once settled');
  t.equal(await inFlight.get('other', compute('other')), 'other', 'keys apart');
  await t.rejects(inFlight.get('bad', async () => { throw new Error('down'); }));
  t.equal(await inFlight.get('bad', compute('recovered')), 'recovered', 'a failure is not kept');
});
