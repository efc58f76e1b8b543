/**
 * Whether tracking notices a data-team query that runs into its memory limit, in `npm start`'s
 * single process: `npm run bench -- sql-memory [--rounds 4] [--seconds 4]`.
 * 20 connections track back to back. Each round holds a query window (tracking while one
 * over-limit query runs, at least `seconds`) and a control window of the same length, in
 * alternating order, each started once the last window's events are stored, so that drift and
 * the consumer's backlog hit both sides alike. The figures: tracking p50 / p99 during ÷ control;
 * the noise is the control windows one against another (even ÷ odd rounds); the peak RSS of the
 * process during the queries against its peak before the first one. Target: p99 ≤ 2 × control.
 */
import fs from 'node:fs';
import { opt } from './lib/args.js';
import { defineBench } from './lib/bench.js';
import { stopChild } from './lib/child.js';
import { startServer } from './ingest/load.js';
import { percentile } from './lib/stats.js';

const KEY = 'bench-sql-memory-key-0123456789';
const CONNECTIONS = 20;
const OVER_LIMIT = 'SELECT length(groupArray(toString(number))) FROM numbers(100000000)';

const rssOf = (pid: number): number => {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
};

interface Window { latencies: number[]; peakRss: number; failed: number }

export default defineBench({
  summary: 'Tracking latency in npm start\'s process while a data-team query runs into its memory limit, against control windows in the same run.',
  options: {
    rounds: opt.number(4, 'query windows, each with a control window', { min: 2, integer: true }),
    seconds: opt.number(4, 'least length of a window, in seconds', { min: 1 }),
    limit: opt.number(300_000_000, 'the data team\'s memory limit per query, bytes (SQL_MAX_MEMORY_USAGE)', { min: 1, integer: true }),
  },
  async run(o, report) {
    const server = await startServer('standalone', { env: { SQL_API_KEY: KEY, SQL_MAX_MEMORY_USAGE: String(o.limit) } });
    const url = `http://127.0.0.1:${server.port}`;
    const pid = server.child.pid!;
    let sent = 0;
    let acknowledged = 0;
    const track = async (label: string, until: Promise<unknown>): Promise<Window> => {
      const w: Window = { latencies: [], peakRss: rssOf(pid), failed: 0 };
      const sampler = setInterval(() => { w.peakRss = Math.max(w.peakRss, rssOf(pid)); }, 20);
      let done = false;
      void Promise.all([until, new Promise((r) => setTimeout(r, o.seconds * 1000))]).then(() => { done = true; });
      await Promise.all(Array.from({ length: CONNECTIONS }, async (_, c) => {
        while (!done) {
          const t0 = performance.now();
          const res = await fetch(`${url}/api/analytics/track`, {
            method: 'POST', headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ event: 'visitor', token: `mem-${label}-${c}-${sent++}`, data: { chatbot_id: 'bot-sqlmem' } }),
          });
          await res.arrayBuffer();
          w.latencies.push(performance.now() - t0);
          if (res.status === 200) acknowledged++;
          else w.failed++;
        }
      }));
      clearInterval(sampler);
      return w;
    };
    const sql = async (query: string): Promise<{ status: number; code: string | null; text: string }> => {
      const r = await fetch(`${url}/clickhouse/`, { method: 'POST', headers: { 'x-clickhouse-key': KEY }, body: query });
      return { status: r.status, code: r.headers.get('x-clickhouse-exception-code'), text: await r.text() };
    };
    // The next window starts once the consumer has stored what the last one had acknowledged.
    const drained = async () => {
      for (let i = 0; i < 600; i++) {
        const r = await sql("SELECT count() FROM events WHERE chatbot_id = 'bot-sqlmem'");
        if (Number(r.text.trim()) >= acknowledged) return;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error('the consumer did not store the acknowledged events within 60 s');
    };

    try {
      const warm = await track('warm', Promise.resolve());
      await drained();
      const query: Window[] = [];
      const control: Window[] = [];
      for (let round = 0; round < o.rounds; round++) {
        for (const side of round % 2 === 0 ? ['control', 'query'] : ['query', 'control']) {
          if (side === 'control') {
            control.push(await track(`control-${round}`, Promise.resolve()));
          } else {
            const answer = sql(OVER_LIMIT);
            query.push(await track(`query-${round}`, answer));
            const a = await answer;
            if (a.status !== 400 || a.code !== '241') throw new Error(`the over-limit query answered ${a.status} ${a.code}: ${a.text.slice(0, 200)}`);
          }
          await drained();
        }
      }
      const all = (ws: Window[]) => ws.flatMap((w) => w.latencies);
      const ratio = (a: number[], b: number[], p: number) => percentile(a, p) / percentile(b, p);
      const even = control.filter((_, i) => i % 2 === 0);
      const odd = control.filter((_, i) => i % 2 === 1);
      const failed = [...query, ...control].reduce((n, w) => n + w.failed, 0);
      const peakDuring = Math.max(...query.map((w) => w.peakRss));
      report.figures({ connections: CONNECTIONS, rounds: o.rounds, limitMb: o.limit / 1e6 }, [
        ['tracking p50 during query', percentile(all(query), 50), 'ms'],
        ['tracking p99 during query', percentile(all(query), 99), 'ms'],
        ['tracking p50 control', percentile(all(control), 50), 'ms'],
        ['tracking p99 control', percentile(all(control), 99), 'ms'],
        ['p50 during ÷ control', ratio(all(query), all(control), 50), '×'],
        ['p99 during ÷ control', ratio(all(query), all(control), 99), '×'],
        ['noise p50 (control ÷ control)', ratio(all(odd), all(even), 50), '×'],
        ['noise p99 (control ÷ control)', ratio(all(odd), all(even), 99), '×'],
        ['peak RSS during query', peakDuring / 1e6, 'MB'],
        // Before any query: afterwards the allocator keeps pages a query freed.
        ['peak RSS before any query', warm.peakRss / 1e6, 'MB'],
        ['tracking requests not acknowledged', failed, 'requests'],
      ]);
      const p99Ratio = ratio(all(query), all(control), 99);
      report.text(`tracking p99 during ÷ control ${p99Ratio.toFixed(2)}× (target ≤ 2×): ${p99Ratio <= 2 ? 'met' : 'MISSED'}`);
    } finally {
      await stopChild(server.child);
    }
  },
});
