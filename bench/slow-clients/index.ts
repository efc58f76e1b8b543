/**
 * `npm run bench:slow-clients`: the slow-client harness (harness.ts) at full scale, 25,000
 * sockets with the production timeouts, against the ingest entry point on the embedded log or
 * (--standalone) `npm start`. Exit code 1 when a socket outlived the bound.
 */
import { opt } from '../lib/args.js';
import { defineBench } from '../lib/bench.js';
import { runSlowClients } from './harness.js';

export default defineBench({
  summary: 'Sockets that send headers and 10 of 1,000 announced body bytes, then nothing: how long the server takes to close each (bound: the request timeout + its checking interval).',
  options: {
    sockets: opt.number(25_000, 'slow sockets, 10,000 per worker process', { min: 1, integer: true }),
    'request-timeout-ms': opt.number(10_000, 'the server\'s HTTP_REQUEST_TIMEOUT_MS', { min: 1 }),
    'headers-timeout-ms': opt.number(5000, 'the server\'s HTTP_HEADERS_TIMEOUT_MS', { min: 1 }),
    'start-delay-ms': opt.number(0, 'every other socket waits this long after connecting before it sends', { min: 0 }),
    connecting: opt.number(0, 'connection attempts in flight per worker; 0 = all at once (a flood)', { min: 0, integer: true }),
    standalone: opt.flag('attack npm start instead of the ingest service alone'),
  },
  async run(o, report) {
    const result = await runSlowClients({
      sockets: o.sockets,
      requestTimeoutMs: o['request-timeout-ms'],
      headersTimeoutMs: o['headers-timeout-ms'],
      startDelayMs: o['start-delay-ms'],
      connecting: o.connecting,
      target: o.standalone ? 'standalone' : 'ingest',
    });
    report.text(JSON.stringify(result));
    const context = { target: o.standalone ? 'standalone' : 'ingest', sockets: result.sockets, boundMs: result.boundMs };
    report.figures(context, [
      ['closed within the bound', result.withinBound, 'sockets'], ['never closed', result.neverClosed, 'sockets'],
      ['refused', result.refused, 'sockets'], ['answered 408', result.answered408, 'sockets'],
      ['life p50', result.p50Ms, 'ms'], ['life p99', result.p99Ms, 'ms'], ['life max', result.maxMs, 'ms'],
    ]);
    process.exitCode = result.withinBound === result.sockets ? 0 : 1;
  },
});
