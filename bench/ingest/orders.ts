/**
 * `npm run bench -- ingest-orders`: the shop's orders route against the tracking route, on one
 * server child (server.ts `embedded`: the real ingest and orders plugins on the embedded durable
 * log, one publisher), loaded alternately in the same run through POST /api/orders (one order
 * state per request, `Authorization: Bearer <orders key>`, 1–3 items, some with refunds) and POST
 * /api/analytics/track (one event per request). A 200 means the state is durable on the bus, so
 * orders/s durable = 2xx requests/s. Target: ≥ 5,000 orders/s durable.
 */
import { mintOrdersKey } from '@chatlytics/events';
import { opt, type Values } from '../lib/args.js';
import { defineBench } from '../lib/bench.js';
import { stopChild } from '../lib/child.js';
import { machineLoad } from '../lib/machine.js';
import { alternate } from '../lib/pairs.js';
import type { Report } from '../lib/report.js';
import { medianBy } from '../lib/stats.js';
import { RUN_OPTIONS, load, startServer, trackRequests } from './load.js';

export const ORDERS_TARGET_PER_SEC = 5000;
const CHATBOT = '0190b3c4-0000-7000-8000-00000000000a';

const OPTIONS = {
  ...RUN_OPTIONS,
  connections: opt.number(64, 'connections', { min: 1, integer: true }),
};

export default defineBench({ summary: 'Durable orders/s through POST /api/orders against the tracking route, alternately on one server.', options: OPTIONS, run: benchOrdersRoute });

/** Distinct order states of one chatbot, as a shop's backend sends them: paid, a few refunded. */
function orderBodies(n: number): string[] {
  return Array.from({ length: n }, (_, i) => JSON.stringify({
    order_id: `#${100_000 + i}`,
    token: `tok_${i.toString(36).padStart(10, '0')}`,
    placed_at: new Date(Date.UTC(2026, 11, 1, 10) + i * 1000).toISOString(),
    currency: ['EUR', 'USD', 'SEK'][i % 3],
    items: Array.from({ length: 1 + (i % 3) }, (_, k) => ({ item_id: `sku-${(i + k) % 300}`, quantity: 1 + (k % 2), value: 9.9 + k })),
    status: 'paid',
    ...(i % 10 === 9 ? { refunds: [{ refund_id: `r-${i}`, at: new Date(Date.UTC(2026, 11, 2)).toISOString(), amount: 5 }] } : {}),
  }));
}

/** Tracker-shaped single events (as the batch bench's single route). */
function eventBodies(n: number): string[] {
  return Array.from({ length: n }, (_, i) => JSON.stringify({
    event: ['visitor', 'message_sent', 'bot_open'][i % 3], token: `bench_${i.toString(36).padStart(14, '0')}${i % 2}`,
    data: { chatbot_id: `bot-${i % 20}`, url: `https://shop-${i % 20}.example/products/${i % 500}` },
  }));
}

type Route = 'track' | 'orders';
interface Run { perSec: number; p99: number; failed: number; cpuUsPerReq: number }

async function benchOrdersRoute(o: Values<typeof OPTIONS>, report: Report): Promise<void> {
  const { seconds, rounds, connections } = o;
  const key = mintOrdersKey(CHATBOT);
  const server = await startServer('embedded', { env: { BENCH_ORDERS_KEY: key } });
  const requests = {
    track: trackRequests(eventBodies(400), { 'content-type': 'text/plain;charset=UTF-8' }),
    orders: trackRequests(orderBodies(400), { 'content-type': 'application/json', authorization: `Bearer ${key}` }, '/api/orders'),
  };
  const run = async (route: Route, duration: number): Promise<Run> => {
    const r = await load(server, requests[route], { seconds: duration, connections });
    return { perSec: r.ok / Math.max(1, duration), p99: r.p99, failed: r.non2xx + r.errors, cpuUsPerReq: r.cpuUsPerReq };
  };
  let runs: Record<Route, Run[]>;
  try {
    for (const route of ['track', 'orders'] as const) {
      const warm = await run(route, 2);
      if (warm.perSec === 0) throw new Error(`${route}: no request answered 2xx in the warm-up (${warm.failed} failed)`);
    }
    runs = await alternate(rounds, {
      track: (round) => { report.text(`orders bench: round ${round + 1}, tracking route...`); return run('track', seconds); },
      orders: (round) => { report.text(`orders bench: round ${round + 1}, orders route...`); return run('orders', seconds); },
    }, { flip: true });
  } finally {
    await stopChild(server.child);
  }
  report.text(`\nPOST /api/orders vs POST /api/analytics/track, embedded log, ${connections} connections, ${seconds} s per run, median of ${rounds} alternating rounds`);
  for (const route of ['track', 'orders'] as const) {
    const r = medianBy(runs[route], (x) => x.perSec);
    report.text(`${route.padEnd(7)} durable/s ${r.perSec.toFixed(0).padStart(7)}  p99 ${r.p99} ms  server CPU ${r.cpuUsPerReq.toFixed(0)} µs/request  failed ${r.failed}  (rounds: ${runs[route].map((x) => x.perSec.toFixed(0)).join(', ')})`);
    report.figures({ route, connections, seconds, rounds }, [['durable per second', r.perSec, 'req/s'], ['p99', r.p99, 'ms'], ['server CPU per request', r.cpuUsPerReq, 'µs'], ['failed', r.failed, 'requests']]);
  }
  const orders = medianBy(runs.orders, (x) => x.perSec).perSec;
  const track = medianBy(runs.track, (x) => x.perSec).perSec;
  report.figures({ route: 'orders' }, [['orders ÷ tracking', orders / track, '×']]);
  const met = orders >= ORDERS_TARGET_PER_SEC;
  report.text(`orders: ${orders.toFixed(0)}/s durable (target ≥ ${ORDERS_TARGET_PER_SEC}: ${met ? 'ok' : 'MISSED'}), ${(orders / track).toFixed(2)}× the tracking route's`);
  const { loadAverage, cpus } = machineLoad();
  report.text(`machine load average during the run: ${loadAverage.join(' ')} on ${cpus} CPUs`);
  if (!met) process.exitCode = 1;
}
