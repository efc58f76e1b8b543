import t from 'tap';
import { analyticsPairsOf, insightsTimeframeOf, viewQuery } from '../src/html/window-link.js';

t.test('the analytics window in the insights page\'s words, and back', async (t) => {
  t.equal(insightsTimeframeOf([['timeframe', '30'], ['device', 'mobile']]), '30 days');
  t.equal(insightsTimeframeOf([['timeframe', '1']]), '24 hours');
  t.equal(insightsTimeframeOf([['from', '2026-05-01'], ['to', '2026-05-10'], ['compare', 'none']]), '2026-05-01..2026-05-10');
  t.equal(insightsTimeframeOf([['compare', 'none']]), undefined, 'no window: the page\'s default');
  for (const [text, pairs] of [
    ['30 days', [['timeframe', '30']]], ['24 hours', [['timeframe', '1']]], ['week', [['timeframe', '7']]], ['month', [['timeframe', '30']]],
    ['3 months', [['timeframe', '90']]], ['14', [['timeframe', '14']]], ['1 day', [['timeframe', '1']]],
    ['2026-05-01..2026-05-10', [['from', '2026-05-01'], ['to', '2026-05-10']]], ['march', []], ['6 hours', []], ['0 days', []],
  ] as [string, [string, string][]][]) t.same(analyticsPairsOf(text), pairs, text);
  for (const days of ['1', '7', '30', '90']) t.same(analyticsPairsOf(insightsTimeframeOf([['timeframe', days]])!), [['timeframe', days]], `${days} days both ways`);
});

t.test('a tab\'s link: analytics keeps the filter, insights the window alone, the others nothing', async (t) => {
  const keep: [string, string][] = [['timeframe', '30'], ['compare', 'none'], ['source', 'google']];
  t.equal(viewQuery('analytics', keep), '?timeframe=30&compare=none&source=google');
  t.equal(viewQuery('insights', keep), '?timeframe=30+days');
  for (const view of ['live', 'alerts', 'setup']) t.equal(viewQuery(view, keep), '');
  t.equal(viewQuery('analytics', []), '');
  t.equal(viewQuery('insights', [['source', 'google']]), '');
});
