/**
 * `npm run bench -- privacy-erase --dir <dir>`: visitors erased on the big shop (README.md,
 * "Personal data"). On the bench:stats data set (generated into `--dir` if it is empty, reused
 * otherwise), the visitor with the most events of the shop is erased as the erasure job does it
 * (listed in erased_tokens, then eraseTokenRows: every row naming it, its ids out of the
 * aggregates). Figures: how long the ClickHouse part takes, the rows it removed, and the
 * purchases statistic's latency while it runs against a control window of as many calls right
 * after it, each window started once no merge or mutation runs (calls back to back on a second
 * connection; `--visitors` erasures, each followed by its control window, so that the machine's
 * drift hits both sides alike). The noise the ratio is read against: the control windows one
 * against another. The calls before the first erasure and after the last tell a cost the erased
 * rows leave behind (masked rows of `events`, rewritten parts), apart
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
import { waitForQuietMerges } from './lib/merges.js';
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
      const q = (xs: number[], p: number) => quantile([...xs].sort((a, b) => a - b), p) ?? 0;
      const stats = createEventStatsRepository(engine);
      const tops = await engine.query<{ token: string; events: string }>(
        'SELECT token, count() AS events FROM events WHERE chatbot_id = {c:String} GROUP BY token ORDER BY events DESC LIMIT {n:UInt32}', { c: chatbotId, n: o.visitors });
      const call = async () => {
        const t0 = performance.now();
        await stats.purchases(chatbotId, window);
        return performance.now() - t0;
      };
      report.text(`merges and mutations of the load finished after ${await waitForQuietMerges(engine)} s more`);
      for (let i = 0; i < 3; i++) await call();
      const before: number[] = [];
      for (let i = 0; i < o.calls; i++) before.push(await call());

      // The reference the calls during an erasure are read against: a control window of as many
      // calls right after each erasure window, both started with no merge or mutation running (so
      // the erasure's own statements are all that differs), alternated so that the machine's drift
      // hits both alike. The noise is the control windows one against another (odd ÷ even).
      const during: number[][] = [];
      const control: number[][] = [];
      const seconds: number[] = [];
      for (const top of tops) {
        await waitForQuietMerges(engine, 120);
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
        const inWindow: number[] = [];
        while (erasing) inWindow.push(await call());
        const removed = await erasure;
        seconds.push((performance.now() - started) / 1000);
        during.push(inWindow);
        await waitForQuietMerges(engine, 120);
        const quiet: number[] = [];
        while (quiet.length < Math.max(5, inWindow.length)) quiet.push(await call());
        control.push(quiet);
        report.text(`erased a visitor of ${top.events} events in ${seconds.at(-1)!.toFixed(1)} s: ${JSON.stringify(removed)}; `
          + `purchases p50 during ${q(inWindow, 0.5).toFixed(1)}, control ${q(quiet, 0.5).toFixed(1)} ms (${inWindow.length} calls each)`);
      }
      const after: number[] = [];
      for (let i = 0; i < o.calls; i++) after.push(await call());
      const slowest = Math.max(...seconds);
      const all = (ws: number[][], keep: (i: number) => boolean = () => true) => ws.filter((_, i) => keep(i)).flat();
      const ratio = (a: number[], b: number[], p: number) => q(a, p) / q(b, p);
      const [d, c] = [all(during), all(control)];
      const [odd, even] = [all(control, (i) => i % 2 === 0), all(control, (i) => i % 2 === 1)];
      const noise = even.length ? [ratio(even, odd, 0.5), ratio(even, odd, 0.95)] : [NaN, NaN];
      report.text(`purchases during (${d.length} calls) p50 ${q(d, 0.5).toFixed(1)} / p95 ${q(d, 0.95).toFixed(1)} ms; control (${c.length}) ${q(c, 0.5).toFixed(1)} / ${q(c, 0.95).toFixed(1)} ms: `
        + `during ÷ control ${ratio(d, c, 0.5).toFixed(2)}× / ${ratio(d, c, 0.95).toFixed(2)}×; noise, control windows even ÷ odd ${noise[0].toFixed(2)}× / ${noise[1].toFixed(2)}×`);
      // Within noise: no further from 1 than the control windows are from each other.
      const within = (r: number, n: number) => Math.abs(Math.log(r)) <= Math.abs(Math.log(n));
      report.text(`during within noise: p50 ${within(ratio(d, c, 0.5), noise[0]) ? 'yes' : 'no'}, p95 ${within(ratio(d, c, 0.95), noise[1]) ? 'yes' : 'no'}`);
      report.text(`purchases before p50 ${q(before, 0.5).toFixed(1)} / p95 ${q(before, 0.95).toFixed(1)} ms; after ${q(after, 0.5).toFixed(1)} / ${q(after, 0.95).toFixed(1)} ms: `
        + `${ratio(after, before, 0.5).toFixed(2)}× / ${ratio(after, before, 0.95).toFixed(2)}×`);
      report.figures({ events: o.events, visitors: tops.length, pace: o.pace }, [
        ['erasure, ClickHouse part, slowest', slowest, 's'],
        ['purchases during p50', q(d, 0.5), 'ms'], ['purchases during p95', q(d, 0.95), 'ms'],
        ['purchases control p50', q(c, 0.5), 'ms'], ['purchases control p95', q(c, 0.95), 'ms'],
        ['during ÷ control p50', ratio(d, c, 0.5), '×'], ['during ÷ control p95', ratio(d, c, 0.95), '×'],
        ['noise: control windows p50', noise[0], '×'], ['noise: control windows p95', noise[1], '×'],
        ['after ÷ before p50', ratio(after, before, 0.5), '×'],
      ]);
      const ordersOk = await compareRevenueSources(engine, chatbotId, window, o.calls, report, { events: o.events, visitors: tops.length, phase: 'after erasures' }, ['purchases']);
      process.exitCode = slowest <= 60 && ordersOk ? 0 : 1;
    } finally {
      await engine.close();
    }
  },
});
