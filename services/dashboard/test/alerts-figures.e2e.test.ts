import t from 'tap';
import type { Database } from '@chatlytics/postgres';
import { generateEvents, parseChTime } from '@chatlytics/testkit';
import { createAlertFigures } from '../src/alerts/figures.js';
import { baselineWindow, conversionRateWithChat, currentWindow, decide, type AlertFigures } from '../src/alerts/rules.js';
import { createEventStatsRepository } from '../src/stats/readers.js';
import { createStatsRepository } from '../src/stats/readers.js';
import { insertEvents, openClickHouse } from './stats-fixtures.js';

/**
 * Each alert kind's figure is the statistic it names, for minute-precision windows: the
 * evaluator's numbers equal what the statistics repository answers for the same window.
 */
const NOW = Date.parse('2026-03-01T12:00:00.000Z');
const BOT = 'a1e27000-0000-4000-8000-000000000001';
const OTHER = 'a1e27000-0000-4000-8000-000000000002';

const ch = await openClickHouse();
t.teardown(() => ch.close());
const events = generateEvents({ seed: 44, now: NOW, chatbotId: BOT, otherChatbotIds: [OTHER], users: 400, spanDays: 20 });
await insertEvents(ch.embedded, events);
const figuresOf = createAlertFigures(ch.embedded);
const stats = createStatsRepository({ clickhouse: ch.embedded, db: {} as Database, appUrl: 'http://localhost' });
const eventStats = createEventStatsRepository(ch.embedded);
const now = new Date(NOW);

for (const windowMinutes of [1, 90, 1440, 2 * 1440 + 7]) {
  t.test(`window of ${windowMinutes} minutes`, async (t) => {
    const w = currentWindow({ windowMinutes }, now);

    const silence = await figuresOf({ kind: 'silence', windowMinutes, threshold: null, chatbotId: BOT, abTestEnabled: false }, now) as Extract<AlertFigures, { kind: 'silence' }>;
    const inWindow = events.filter((e) => e.chatbot_id === BOT && !e.is_bot && parseChTime(e.received_at) >= w.from.getTime() && parseChTime(e.received_at) <= w.to.getTime());
    t.equal(silence.events, inWindow.length, 'silence: the non-bot rows received in W');

    const drop = await figuresOf({ kind: 'conversion_drop', windowMinutes, threshold: 50, chatbotId: BOT, abTestEnabled: false }, now) as Extract<AlertFigures, { kind: 'conversion_drop' }>;
    const current = await stats.purchases({ id: BOT, abTestEnabled: false }, w);
    const baseline = await stats.purchases({ id: BOT, abTestEnabled: false }, baselineWindow({ windowMinutes }, now));
    t.equal(drop.current.chatted, current.total_users_chatted);
    t.equal(conversionRateWithChat(drop.current), current.conversion_rate_with_chat, 'conversion_rate_with_chat of W');
    t.equal(drop.baseline.chatted, baseline.total_users_chatted);
    t.equal(conversionRateWithChat(drop.baseline), baseline.conversion_rate_with_chat, 'conversion_rate_with_chat of the 7 windows before');

    const dislikes = await figuresOf({ kind: 'dislike_share', windowMinutes, threshold: 30, chatbotId: BOT, abTestEnabled: false }, now);
    const reactions = await eventStats.insightsEvents(BOT, w);
    t.same(dislikes, { kind: 'dislike_share', likes: reactions.likes, dislikes: reactions.dislikes }, "the insights report's reactions");

    const ab = await figuresOf({ kind: 'ab_mismatch', windowMinutes, threshold: null, chatbotId: BOT, abTestEnabled: true }, now);
    const purchases = await stats.purchases({ id: BOT, abTestEnabled: true }, w) as { ab_test: { comparison: { sample_ratio_mismatch: boolean; sample_ratio_p_value: number } } };
    const decision = decide({ kind: 'ab_mismatch', windowMinutes, threshold: null }, ab);
    t.equal(decision.state === 'firing', purchases.ab_test.comparison.sample_ratio_mismatch, 'sample_ratio_mismatch of the purchases statistic');
    t.equal(decision.value, purchases.ab_test.comparison.sample_ratio_p_value);
  });
}

t.test('the figures have data to compare (the generated history is not empty in the day window)', async (t) => {
  const w = currentWindow({ windowMinutes: 2 * 1440 + 7 }, now);
  const p = await stats.purchases({ id: BOT, abTestEnabled: false }, w);
  t.ok(p.total_users_chatted > 0, `${p.total_users_chatted} chatted visitors`);
  const r = await eventStats.insightsEvents(BOT, w);
  t.ok(r.likes + r.dislikes > 0, `${r.likes + r.dislikes} reactions`);
});

t.test('silence: an unknown chatbot has no event', async (t) => {
  t.same(await figuresOf({ kind: 'silence', windowMinutes: 1440, threshold: null, chatbotId: 'a1e27000-0000-4000-8000-00000000ffff', abTestEnabled: false }, now), { kind: 'silence', events: 0 });
});
