/**
 * What the data team's SQL sandbox costs per query: `npm run bench -- sql-sandbox [--runs 50]`.
 * Medians over `runs` requests (after 10 warm-up ones) through `/clickhouse` on an embedded
 * engine in a temp directory: `SELECT 1` sent again and again, a parameterised query (bound, so
 * its check is bound too), and a text the interface has not seen before on every request
 * (`SELECT <n>`: nothing of its parse or check can be remembered). Then the engine round trips
 * the check is made of, on a chdb session directly. Run it on two commits, alternately, to
 * compare the interface with and without a change.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { Session } from 'chdb';
import { CLICKHOUSE_HTTP_MAX_URI_BYTES, clickhouseHttp, sqlApiKeyAuth } from '@chatlytics/clickhouse';
import { opt } from './lib/args.js';
import { defineBench } from './lib/bench.js';
import { median } from './lib/stats.js';

const KEY = 'bench-sql-sandbox-key-0123';

export default defineBench({
  summary: 'The data team\'s SQL interface per query: the engine\'s parse and the read-only check, against the engine round trips it is made of.',
  options: { runs: opt.number(50, 'timed requests per figure (after 10 warm-up ones)', { min: 1, integer: true }) },
  async run(o, report) {
    const dir = mkdtempSync(path.join(tmpdir(), 'chatlytics-bench-sandbox-'));
    const measure = async (fn: () => Promise<void>): Promise<number> => {
      for (let i = 0; i < 10; i++) await fn();
      const times: number[] = [];
      for (let i = 0; i < o.runs; i++) {
        const t0 = performance.now();
        await fn();
        times.push(performance.now() - t0);
      }
      return median(times);
    };

    const setup = new Session(dir, {});
    await setup.queryAsync('CREATE DATABASE IF NOT EXISTS analytics');
    await setup.queryAsync('CREATE TABLE analytics.t (n UInt32, s String) ENGINE = MergeTree ORDER BY n');
    await setup.queryAsync("INSERT INTO analytics.t SELECT number, toString(number) FROM numbers(1000)");

    const app = Fastify({ logger: false, http: { maxHeaderSize: CLICKHOUSE_HTTP_MAX_URI_BYTES } });
    await app.register(clickhouseHttp, { prefix: '/clickhouse', sessionPath: dir, database: 'analytics', readonly: true, authenticate: sqlApiKeyAuth(KEY) });
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    const request = async (qs: string) => {
      const res = await fetch(`${url}/clickhouse/?${qs}`, { headers: { authorization: `Bearer ${KEY}` } });
      if (res.status !== 200) throw new Error(`${res.status} ${await res.text()}`);
      await res.arrayBuffer();
    };

    const results: Record<string, number> = {};
    results['HTTP SELECT 1'] = await measure(() => request(`query=${encodeURIComponent('SELECT 1')}`));
    results['HTTP bound count()'] = await measure(() => request(`query=${encodeURIComponent('SELECT count() FROM t WHERE s != {s:String}')}&param_s=x`));
    let fresh = 1000;
    results['HTTP a new text each time'] = await measure(() => request(`query=${encodeURIComponent(`SELECT ${fresh++}`)}`));
    const ro = new Session(dir, { connectionArgs: ['--readonly=1'] });
    results['session SELECT 1'] = await measure(async () => { await ro.queryAsync('SELECT 1', { format: 'TSVRaw' }); });
    results['session EXPLAIN AST SELECT 1'] = await measure(async () => { await ro.queryAsync('EXPLAIN AST SELECT 1', { format: 'TSVRaw' }); });
    results['session formatQuery (bound)'] = await measure(async () => { await ro.queryBindAsync('SELECT formatQuery({q:String})', { q: 'SELECT 1' }, { format: 'TSVRaw' }); });

    for (const [name, ms] of Object.entries(results)) {
      report.text(`${name.padEnd(30)} median ${ms.toFixed(2)} ms (${o.runs} runs)`);
      report.figure(name, ms, 'ms', { runs: o.runs });
    }
    await app.close();
    ro.close();
    setup.close();
    rmSync(dir, { recursive: true, force: true });
  },
});
