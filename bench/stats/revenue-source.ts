/**
 * The statistics under the revenue source 'orders' against the same statistics under 'tracker'
 * (issue target: within 1.2×), on the one-shop profiles: each money-bearing statistic timed per
 * call alternately under both rules (flipped every other round), through the statistics' own
 * modules as the app asks for them (createStatsRepository: the SQL, then rates and rounding).
 */
import type { ClickHouseEngine } from '@chatlytics/clickhouse';
import { createStatsRepository, type StatsChatbot, type StatsWindow, type StatsRepositoryDeps } from '@chatlytics/dashboard/stats';
import { alternate, summarize } from '../lib/pairs.js';
import type { Report } from '../lib/report.js';
import { percentile } from '../lib/stats.js';

/** The figure the issue bounds: orders p95 ÷ tracker p95, per statistic. */
export const ORDERS_TARGET_RATIO = 1.2;
const WARM_UP_CALLS = 4;

/** Resolves with whether every statistic met the ratio; `only` names the statistics to time (all when absent). */
export async function compareRevenueSources(engine: ClickHouseEngine, chatbotId: string, window: StatsWindow, calls: number, report: Report, context: Record<string, unknown>, only?: readonly string[]): Promise<boolean> {
  // These statistics read ClickHouse alone.
  const stats = createStatsRepository({ clickhouse: engine, db: undefined } as unknown as StatsRepositoryDeps);
  const bot = (source: 'tracker' | 'orders'): StatsChatbot => ({ id: chatbotId, abTestEnabled: true, holdoutPercent: 10, revenueSource: source, attributionWindowDays: 7 });
  const statistics: Record<string, (b: StatsChatbot) => Promise<unknown>> = {
    purchases: (b) => stats.purchases(b, window),
    timeseries: (b) => stats.timeseries(b, window),
    'sources by device': (b) => stats.sources(b, window, 'device'),
    lift: (b) => stats.lift(b, window),
  };
  report.text(`\nrevenue source 'orders' against 'tracker' (A/B block on, holdout 10 %, window 7 days for orders), ${calls} alternated calls each:`);
  report.text('statistic              tracker p50/p95   orders p50/p95   p95 ratio  target');
  let ok = true;
  for (const [name, read] of Object.entries(statistics).filter(([n]) => !only || only.includes(n))) {
    for (let i = 0; i < WARM_UP_CALLS; i++) { await read(bot('tracker')); await read(bot('orders')); }
    const timed = (source: 'tracker' | 'orders') => async () => { const start = performance.now(); await read(bot(source)); return performance.now() - start; };
    const runs = await alternate(calls, { tracker: timed('tracker'), orders: timed('orders') }, { flip: true });
    const [t, o] = [runs.tracker, runs.orders];
    const ratio = percentile(o, 95) / percentile(t, 95);
    const pass = ratio <= ORDERS_TARGET_RATIO;
    ok &&= pass;
    for (const [side, xs] of [['tracker', t], ['orders', o]] as const) {
      report.figures({ ...context, statistic: name, revenue_source: side }, [['p50', summarize(xs).median, 'ms'], ['p95', percentile(xs, 95), 'ms']]);
    }
    report.figure('orders ÷ tracker p95', ratio, '×', { ...context, statistic: name, target: ORDERS_TARGET_RATIO, met: pass });
    const pair = (xs: number[]) => `${summarize(xs).median.toFixed(1)}/${percentile(xs, 95).toFixed(1)}`.padStart(16);
    report.text(`${name.padEnd(20)} ${pair(t)} ${pair(o)}   ${`${ratio.toFixed(2)}×`.padStart(8)}  ${pass ? 'ok' : 'MISSED'}`);
  }
  return ok;
}
