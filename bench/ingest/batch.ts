/**
 * The batch route against the single route (the last part of `npm run bench:ingest`, alone
 * `npm run bench -- ingest-batch`). One server child (server.ts `embedded`: the real ingest plugin
 * on the embedded durable log) is loaded alternately through POST /api/analytics/track (one event
 * per request) and POST /api/analytics/batch (20 events per request, what the tracker sends), in
 * the same run. A 200 means every event of the request is durable, so events/s durable =
 * 2xx requests/s × events per request. Targets: batch ≥ 5 × single events/s, RSS ≤ 200 MB.
 */
import { opt, type Values } from '../lib/args.js';
import { defineBench } from '../lib/bench.js';
import { stopChild } from '../lib/child.js';
import { machineLoad } from '../lib/machine.js';
import { alternate } from '../lib/pairs.js';
import type { Report } from '../lib/report.js';
import { medianBy } from '../lib/stats.js';
import { RUN_OPTIONS, load, startServer, trackRequests } from './load.js';

const BATCH_SIZE = 20;

const BATCH_OPTIONS = {
  ...RUN_OPTIONS,
  'batch-connections': opt.number(64, 'connections of the batch part', { min: 1, integer: true }),
};

export default defineBench({ summary: 'Durable events/s through the batch route (20 events a request) against the single-event route, alternately on one server.', options: BATCH_OPTIONS, run: benchBatchRoute });

/** Tracker-shaped events: distinct tokens and ids, a mix of page, chat and purchase events. */
function trackerEvents(n: number): object[] {
  return Array.from({ length: n }, (_, i) => {
    const token = `bench_${i.toString(36).padStart(14, '0')}${i % 2}`;
    const data: Record<string, unknown> = { chatbot_id: `bot-${i % 20}`, event_id: `0190${i.toString(16).padStart(4, '0')}-0000-7000-8000-${i.toString(16).padStart(12, '0')}` };
    if (i % 10 === 9) data.items = [{ item_id: `sku-${i % 300}`, value: 19.9, quantity: 1, currency: 'EUR' }];
    else data.url = `https://shop-${i % 20}.example/products/${i % 500}`;
    return { event: ['visitor', 'message_sent', 'bot_open'][i % 3], token, data, ab_test: i % 4 === 0 };
  });
}

type Route = 'single' | 'batch';
interface Run { eventsPerSec: number; rps: number; p99: number; failed: number; peakRss: number }

/** The bodies of each route: the same 400 events, one per request or BATCH_SIZE per request. */
function requests(route: Route) {
  const events = trackerEvents(400);
  const bodies = route === 'single'
    ? events.map((e) => JSON.stringify(e))
    : Array.from({ length: events.length / BATCH_SIZE }, (_, i) => JSON.stringify({ events: events.slice(i * BATCH_SIZE, (i + 1) * BATCH_SIZE) }));
  return trackRequests(bodies, { 'content-type': 'text/plain;charset=UTF-8' }, route === 'single' ? '/api/analytics/track' : '/api/analytics/batch');
}

async function benchBatchRoute(o: Values<typeof BATCH_OPTIONS>, report: Report): Promise<void> {
  const { seconds, rounds } = o;
  const connections = o['batch-connections'];
  const server = await startServer('embedded');
  const run = async (route: Route, duration: number): Promise<Run> => {
    const r = await load(server, requests(route), { seconds: duration, connections });
    return { eventsPerSec: (r.ok / Math.max(1, duration)) * (route === 'single' ? 1 : BATCH_SIZE), rps: r.rps, p99: r.p99, failed: r.non2xx + r.errors, peakRss: r.peakRss };
  };
  let runs: Record<Route, Run[]>;
  try {
    await run('single', 2);
    await run('batch', 2);
    // Alternating rounds on one server: outside load on the shared machine hits both alike.
    runs = await alternate(rounds, {
      single: (round) => { report.text(`batch bench: round ${round + 1}, single...`); return run('single', seconds); },
      batch: (round) => { report.text(`batch bench: round ${round + 1}, batch...`); return run('batch', seconds); },
    });
  } finally {
    await stopChild(server.child);
  }
  const single = medianBy(runs.single, (r) => r.eventsPerSec);
  const batch = medianBy(runs.batch, (r) => r.eventsPerSec);
  const rssMb = Math.max(...runs.single.map((r) => r.peakRss), ...runs.batch.map((r) => r.peakRss)) / 2 ** 20;
  report.text(`\nbatch route vs single route, embedded log, ${connections} connections, ${seconds} s per run, median of ${rounds} alternating rounds`);
  for (const [route, name, r] of [['single', 'single', single], ['batch', `batch×${BATCH_SIZE}`, batch]] as const) {
    report.text(`${name.padEnd(9)} events/s durable ${r.eventsPerSec.toFixed(0).padStart(8)}  req/s ${r.rps.toFixed(0).padStart(7)}  p99 ${r.p99} ms  failed ${r.failed}`
      + `  (rounds: ${runs[route].map((x) => x.eventsPerSec.toFixed(0)).join(', ')})`);
    report.figures({ part: 'batch', route: name, connections, seconds, rounds, perRound: runs[route].map((x) => Math.round(x.eventsPerSec)) }, [
      ['events/s durable', r.eventsPerSec, 'ev/s'], ['req/s', r.rps, 'req/s'], ['p99', r.p99, 'ms'], ['failed', r.failed, 'requests'],
    ]);
  }
  const ratio = batch.eventsPerSec / single.eventsPerSec;
  report.figures({ part: 'batch' }, [['events/s ratio batch ÷ single', ratio, '×'], ['peak RSS', rssMb, 'MB']]);
  report.text(`batch: events/s ratio to single ${ratio.toFixed(2)} (target ≥ 5: ${ratio >= 5 ? 'ok' : 'MISSED'}), peak RSS ${rssMb.toFixed(0)} MB (target ≤ 200: ${rssMb <= 200 ? 'ok' : 'MISSED'})`);
  const { loadAverage, cpus } = machineLoad();
  report.text(`machine load average during the run: ${loadAverage.join(' ')} on ${cpus} CPUs`);
}
