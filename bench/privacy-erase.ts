/**
 * `npm run bench -- privacy-erase --dir <dir>`: visitors erased on the big shop (README.md,
 * "Personal data"). On the bench:stats data set (generated into `--dir` if it is empty, reused
 * otherwise), the visitor with the most events of the shop is erased as the erasure job does it
 * (listed in erased_tokens, then eraseTokenRows: every row naming it, its ids out of the
 * aggregates). Figures: how long the ClickHouse part takes, the rows it removed, and the
 * purchases statistic's latency before, while and after it runs (calls back to back on a second
 * connection; `--visitors` erasures one after another, so that more calls fall during one). The
 * calls after tell a cost the erased rows leave behind (masked rows of `events`, rewritten parts)
 * from the erasure's contention for the cores while it runs. Last, the purchases statistic under
 * the revenue source 'orders' against 'tracker' after the erasures (bench:stats' comparison, its
 * 1.2× target): an erasure mutates `orders` (its token leaves them), and the orders' statistics
 * must keep their speed on a mutated part.
 * The erasures change the data set: that many visitors fewer on every run.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BACKGROUND_PACE, createChdbEngine, eraseTokenRows, markTokenErased, runMigrations } from '@chatlytics/clickhouse';
import { createEventStatsRepository, daysWindow } from '@chatlytics/dashboard/stats';
import { opt } from './lib/args.js';
import { defineBench } from './lib/bench.js';
import { benchLogger } from './lib/report.js';
import { quantile } from './lib/stats.js';
import { botId, loadClickHouse, statsProfile } from './stats/data.js';
import { compareRevenueSources } from './stats/revenue-source.js';

export default defineBench({
  summary: 'Visitors erased on the big shop: the ClickHouse part of the erasure, the purchases statistic before, while and after it runs, and under the orders revenue source after it.',
  options: {
    dir: opt.string(undefined, 'the bench:stats big-shop data directory (generated when empty)'),
    events: opt.number(10_000_000, 'events of the generated data set', { min: 1, integer: true }),
    calls: opt.number(40, 'timed purchases calls before the erasures, and after them', { min: 1, integer: true }),
    pace: opt.number(BACKGROUND_PACE, 'the erasure waits this many times as long as each statement took (0: not at all)', { min: 0 }),
    visitors: opt.number(3, 'visitors erased one after another (the most events first): more calls timed during', { min: 1, integer: true }),
  },
  async run(o, report) {
    const profile = statsProfile('big-shop', o.events);
    const dataDir = o.dir ?? path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'chatlytics-bench-erase-')), 'clickhouse');
    const engine = await createChdbEngine({ path: dataDir, database: 'analytics', log: benchLogger('warn'), connections: 2 });
    try {
      await runMigrations(engine);
      const now = await loadClickHouse(engine, profile, dataDir, 500_000, report);
      const chatbotId = botId(0);
      // ClickHouse applies the erasure's nice values only with CAP_SYS_NICE (README.md, "Personal data").
      const capEff = /CapEff:\s*([0-9a-f]+)/.exec(fs.readFileSync('/proc/self/status', 'utf8'))?.[1];
      const sysNice = capEff !== undefined && (BigInt(`0x${capEff}`) & (1n << 23n)) !== 0n;
      report.text(`CAP_SYS_NICE: ${sysNice ? 'yes (merges and mutations at nice 19)' : 'no (the nice values do nothing)'}`);
      const window = daysWindow(30, now);
      const stats = createEventStatsRepository(engine);
      const tops = await engine.query<{ token: string; events: string }>(
        'SELECT token, count() AS events FROM events WHERE chatbot_id = {c:String} GROUP BY token ORDER BY events DESC LIMIT {n:UInt32}', { c: chatbotId, n: o.visitors });
      const call = async () => {
        const t0 = performance.now();
        await stats.purchases(chatbotId, window);
        return performance.now() - t0;
      };
      for (let i = 0; i < 3; i++) await call();
      const before: number[] = [];
      for (let i = 0; i < o.calls; i++) before.push(await call());

      const during: number[] = [];
      const seconds: number[] = [];
      for (const top of tops) {
        let erasing = true;
        const started = performance.now();
        const erasure = (async () => {
          await markTokenErased(engine, chatbotId, top.token);
          try {
            return await eraseTokenRows(engine, { chatbotId, token: top.token, erasureId: randomUUID() }, { pace: o.pace });
          } finally {
            erasing = false;
          }
        })();
        while (erasing) during.push(await call());
        const removed = await erasure;
        seconds.push((performance.now() - started) / 1000);
        report.text(`erased a visitor of ${top.events} events in ${seconds.at(-1)!.toFixed(1)} s: ${JSON.stringify(removed)}`);
      }
      const after: number[] = [];
      for (let i = 0; i < o.calls; i++) after.push(await call());
      const q = (xs: number[], p: number) => quantile([...xs].sort((a, b) => a - b), p) ?? 0;
      const slowest = Math.max(...seconds);
      // The noise the ratio is read against: the same calls with no erasure, one half against the other.
      const half = Math.floor(before.length / 2);
      const noise = q(before.slice(half), 0.5) / q(before.slice(0, half), 0.5);
      const noise95 = q(before.slice(half), 0.95) / q(before.slice(0, half), 0.95);
      report.text(`noise: purchases before, second half ÷ first half p50 ${noise.toFixed(2)}× / p95 ${noise95.toFixed(2)}×`);
      const vsBefore = (xs: number[]) =>
        `p50 ${q(xs, 0.5).toFixed(1)} / p95 ${q(xs, 0.95).toFixed(1)} ms: ${(q(xs, 0.5) / q(before, 0.5)).toFixed(2)}× / ${(q(xs, 0.95) / q(before, 0.95)).toFixed(2)}×`;
      report.text(`purchases before p50 ${q(before, 0.5).toFixed(1)} / p95 ${q(before, 0.95).toFixed(1)} ms; during (${during.length} calls) ${vsBefore(during)}`);
      report.text(`purchases after ${vsBefore(after)} before`);
      report.figures({ events: o.events, visitors: tops.length }, [
        ['erasure, ClickHouse part, slowest', slowest, 's'],
        ['purchases before p50', q(before, 0.5), 'ms'], ['purchases before p95', q(before, 0.95), 'ms'],
        ['purchases during p50', q(during, 0.5), 'ms'], ['purchases during p95', q(during, 0.95), 'ms'],
        ['during ÷ before p50', q(during, 0.5) / q(before, 0.5), '×'], ['after ÷ before p50', q(after, 0.5) / q(before, 0.5), '×'], ['noise: before, halves p50', noise, '×'], ['noise: before, halves p95', noise95, '×'],
      ]);
      const ordersOk = await compareRevenueSources(engine, chatbotId, window, o.calls, report, { events: o.events, visitors: tops.length, phase: 'after erasures' }, ['purchases']);
      process.exitCode = slowest <= 60 && ordersOk ? 0 : 1;
    } finally {
      await engine.close();
    }
  },
});
