import t from 'tap';
import {
  ALERT_DEFAULTS, baselineWindow, currentWindow, decide, type AlertFigures, type AlertRule, type ChatFunnel,
} from '../src/alerts/rules.js';

/**
 * Each alert kind's decision (services/dashboard/README.md, "Alerts") on pinned figures and a
 * pinned clock: no data, zero denominators, and both sides of exactly-at-the-threshold.
 */
const NOW = new Date('2026-03-01T12:00:00.000Z');
const rule = (kind: AlertRule['kind'], over: Partial<AlertRule> = {}): AlertRule => ({ kind, ...ALERT_DEFAULTS[kind], ...over });

t.test('windows: W = [now − window, now]; the baseline is the 7 windows before, ending 1 ms before W', async (t) => {
  t.same(currentWindow({ windowMinutes: 1 }, NOW), { from: new Date('2026-03-01T11:59:00.000Z'), to: NOW });
  t.same(currentWindow({ windowMinutes: 1440 }, NOW), { from: new Date('2026-02-28T12:00:00.000Z'), to: NOW });
  t.same(baselineWindow({ windowMinutes: 60 }, NOW), { from: new Date('2026-03-01T04:00:00.000Z'), to: new Date('2026-03-01T10:59:59.999Z') });
  t.same(baselineWindow({ windowMinutes: 1440 }, NOW), { from: new Date('2026-02-21T12:00:00.000Z'), to: new Date('2026-02-28T11:59:59.999Z') });
});

t.test('defaults', async (t) => {
  t.same(ALERT_DEFAULTS.silence, { windowMinutes: 120, threshold: null });
  t.same(ALERT_DEFAULTS.conversion_drop, { windowMinutes: 1440, threshold: 50 });
  t.same(ALERT_DEFAULTS.dislike_share, { windowMinutes: 1440, threshold: 30 });
  t.same(ALERT_DEFAULTS.ab_mismatch, { windowMinutes: 1440, threshold: null });
});

t.test('silence: fires on no event at all (no data is the condition), ok with one', async (t) => {
  t.same(decide(rule('silence'), { kind: 'silence', events: 0 }), { state: 'firing', value: 0 });
  t.same(decide(rule('silence'), { kind: 'silence', events: 1 }), { state: 'ok', value: 1 });
});

t.test('conversion_drop: strictly below threshold % of the baseline rate fires; exactly at it does not', async (t) => {
  const f = (current: ChatFunnel, baseline: ChatFunnel): AlertFigures => ({ kind: 'conversion_drop', current, baseline });
  const base = { chatted: 100, chattedPurchased: 20 }; // 20 %
  // 10 % is exactly 50 % of 20 %: not below.
  t.same(decide(rule('conversion_drop'), f({ chatted: 100, chattedPurchased: 10 }, base)), { state: 'ok', value: 50 });
  t.same(decide(rule('conversion_drop'), f({ chatted: 100, chattedPurchased: 9 }, base)), { state: 'firing', value: 45 });
  // 9.99 % (999/10000) is just below.
  t.same(decide(rule('conversion_drop'), f({ chatted: 10_000, chattedPurchased: 999 }, base)), { state: 'firing', value: 49.95 });
  t.same(decide(rule('conversion_drop', { threshold: 80 }), f({ chatted: 100, chattedPurchased: 16 }, base)), { state: 'ok', value: 80 });
  t.same(decide(rule('conversion_drop', { threshold: 80 }), f({ chatted: 100, chattedPurchased: 15 }, base)), { state: 'firing', value: 75 });
  // A rise is ok.
  t.same(decide(rule('conversion_drop'), f({ chatted: 10, chattedPurchased: 5 }, base)), { state: 'ok', value: 250 });
  // The rate as the statistic rounds it (percent, 2 decimals) is what is compared.
  t.same(decide(rule('conversion_drop'), f({ chatted: 3, chattedPurchased: 0 }, base)), { state: 'firing', value: 0 });
});

t.test('conversion_drop: too little history, a zero baseline rate or nobody chatting in W is ok with no value', async (t) => {
  const f = (current: ChatFunnel, baseline: ChatFunnel): AlertFigures => ({ kind: 'conversion_drop', current, baseline });
  t.same(decide(rule('conversion_drop'), f({ chatted: 0, chattedPurchased: 0 }, { chatted: 0, chattedPurchased: 0 })), { state: 'ok', value: null }, 'no data');
  t.same(decide(rule('conversion_drop'), f({ chatted: 50, chattedPurchased: 0 }, { chatted: 29, chattedPurchased: 29 })), { state: 'ok', value: null }, '29 chatted visitors are not enough');
  t.same(decide(rule('conversion_drop'), f({ chatted: 50, chattedPurchased: 0 }, { chatted: 30, chattedPurchased: 30 })), { state: 'firing', value: 0 }, '30 are');
  t.same(decide(rule('conversion_drop'), f({ chatted: 50, chattedPurchased: 0 }, { chatted: 100, chattedPurchased: 0 })), { state: 'ok', value: null }, 'baseline rate 0');
  t.same(decide(rule('conversion_drop'), f({ chatted: 0, chattedPurchased: 0 }, { chatted: 100, chattedPurchased: 50 })), { state: 'ok', value: null }, 'nobody chatted in W');
});

t.test('dislike_share: at or above the threshold fires, with at least 20 reactions', async (t) => {
  const f = (likes: number, dislikes: number): AlertFigures => ({ kind: 'dislike_share', likes, dislikes });
  t.same(decide(rule('dislike_share'), f(14, 6)), { state: 'firing', value: 30 }, 'exactly 30 % of 20 fires');
  t.same(decide(rule('dislike_share'), f(15, 5)), { state: 'ok', value: 25 });
  // 299/1000 = 29.9 % just below; 300/1000 at.
  t.same(decide(rule('dislike_share'), f(701, 299)), { state: 'ok', value: 29.9 });
  t.same(decide(rule('dislike_share'), f(700, 300)), { state: 'firing', value: 30 });
  // Just below 30 % but rounding to 30.00: compared unrounded, so ok.
  t.same(decide(rule('dislike_share'), f(70_001, 29_999)), { state: 'ok', value: 30 });
  t.same(decide(rule('dislike_share', { threshold: 50 }), f(10, 10)), { state: 'firing', value: 50 });
  t.same(decide(rule('dislike_share', { threshold: 50 }), f(11, 10)), { state: 'ok', value: 47.62 });
});

t.test('dislike_share: no reactions or fewer than 20 is ok', async (t) => {
  const f = (likes: number, dislikes: number): AlertFigures => ({ kind: 'dislike_share', likes, dislikes });
  t.same(decide(rule('dislike_share'), f(0, 0)), { state: 'ok', value: null }, 'no data, zero denominator');
  t.same(decide(rule('dislike_share'), f(0, 19)), { state: 'ok', value: 100 }, '19 reactions, all dislikes');
  t.same(decide(rule('dislike_share'), f(0, 20)), { state: 'firing', value: 100 }, '20 reactions');
});

t.test('ab_mismatch: the purchases statistic\'s sample_ratio_mismatch (p < 0.001)', async (t) => {
  const f = (controlVisitors: number, testVisitors: number, abTestEnabled = true): AlertFigures => ({ kind: 'ab_mismatch', abTestEnabled, controlVisitors, testVisitors });
  t.same(decide(rule('ab_mismatch'), f(0, 0)), { state: 'ok', value: 1 }, 'no data');
  t.same(decide(rule('ab_mismatch'), f(500, 500)), { state: 'ok', value: 1 });
  t.equal(decide(rule('ab_mismatch'), f(1000, 0)).state, 'firing', 'the split stopped assigning one group');
  t.equal(decide(rule('ab_mismatch'), f(1000, 0)).value, 0);
  // chi² = 10.83 is p = 0.001: a mismatch is strictly below. 1000 visitors: |c − t| = 104 → χ² = 10.816 (p ≈ 0.001006), 106 → 11.236.
  const near = decide(rule('ab_mismatch'), f(552, 448));
  t.equal(near.state, 'ok');
  t.ok(near.value! > 0.001 && near.value! < 0.0011, `p ${near.value} just above 0.001`);
  const past = decide(rule('ab_mismatch'), f(553, 447));
  t.equal(past.state, 'firing');
  t.ok(past.value! < 0.001, `p ${past.value} below 0.001`);
  t.same(decide(rule('ab_mismatch'), f(1000, 0, false)), { state: 'ok', value: null }, 'A/B testing off');
});

t.test('figures of another kind are refused', async (t) => {
  t.throws(() => decide(rule('silence'), { kind: 'dislike_share', likes: 0, dislikes: 0 }));
});
