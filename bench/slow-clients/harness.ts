/**
 * The slow-client harness: the ingest entry point (services/ingest/src/server.ts, embedded log)
 * in its own process, and `sockets` clients, spread over worker processes, that each send
 * headers and 10 of 1,000 announced body bytes, then nothing. Every socket must be closed by
 * the server within the request timeout plus the server's checking interval.
 *
 * `npm run bench:slow-clients` (index.ts) runs it at 25,000 sockets with the production
 * timeouts; the ingest service's slow-clients test runs it small and fast.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { startService, type ServiceProcess } from '@chatlytics/bus/testing';
import { quantile } from '../lib/stats.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');

/** The server's own checking interval (packages/core/src/http-server.ts), part of the bound. */
export const CHECKING_INTERVAL_MS = 1000;
/** Sockets per worker: well under a process's usual descriptor limit. */
const PER_WORKER = 10_000;

export interface SlowClientsOptions {
  sockets: number;
  requestTimeoutMs: number;
  headersTimeoutMs: number;
  /** Connection attempts in flight per worker; 0 = all at once (a flood). Default 256. */
  connecting?: number;
  /** Every other socket waits this long after connecting before it sends (default: none). */
  startDelayMs?: number;
  /** How long past the bound a worker waits for the remaining sockets before giving up on them. */
  graceMs?: number;
  /** The server attacked: the ingest service alone (default) or `npm start` (every surface in one process). */
  target?: 'ingest' | 'standalone';
}

const TARGETS = {
  ingest: { entry: 'services/ingest/src/server.ts', port: 'INGEST_PORT' },
  standalone: { entry: 'services/standalone/src/standalone.ts', port: 'PORT' },
} as const;

export interface SlowClientsResult {
  sockets: number;
  boundMs: number;
  /** Closed by the server within the bound (counted from each socket's connection). */
  withinBound: number;
  /** Still open when the worker gave up (bound + grace after the last socket was opened). */
  neverClosed: number;
  /** Connections the server refused outright (over its connection cap). */
  refused: number;
  answered408: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

async function runWorker(port: number, count: number, block: number, giveUpMs: number, startDelayMs: number, connecting: number) {
  const child = spawn(process.execPath, ['--import=tsx', path.join(here, 'worker.ts'), '127.0.0.1', String(port), String(count), String(block), String(giveUpMs), String(startDelayMs), String(connecting)], {
    cwd: root, stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => { out += chunk.toString(); });
  const [code] = await once(child, 'exit');
  if (code !== 0) throw new Error(`slow-client worker exited ${code}`);
  return JSON.parse(out) as { lifetimes: number[]; refused: number; answered408: number };
}

const pct = (sorted: number[], p: number) => quantile(sorted, p) ?? 0;

export async function runSlowClients(opts: SlowClientsOptions): Promise<SlowClientsResult> {
  const boundMs = opts.requestTimeoutMs + CHECKING_INTERVAL_MS;
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'slow-clients-'));
  const target = TARGETS[opts.target ?? 'ingest'];
  let server: ServiceProcess | undefined;
  try {
    server = await startService(target.entry, {
      DATA_DIR: dataDir, [target.port]: '0', KAFKA_BROKERS: '',
      HTTP_REQUEST_TIMEOUT_MS: String(opts.requestTimeoutMs), HTTP_HEADERS_TIMEOUT_MS: String(opts.headersTimeoutMs),
      // The idle timeout would cut a silent socket on its own; set past the bound so the request timeout is what is measured.
      HTTP_IDLE_TIMEOUT_MS: String(opts.requestTimeoutMs * 10),
    });
    const port = Number(new URL(server.url).port);
    const workers: Promise<Awaited<ReturnType<typeof runWorker>>>[] = [];
    for (let left = opts.sockets, n = 0; left > 0; left -= PER_WORKER, n++) {
      workers.push(runWorker(port, Math.min(PER_WORKER, left), 10 + n, boundMs + (opts.graceMs ?? 20_000), opts.startDelayMs ?? 0, opts.connecting ?? 256));
    }
    const results = await Promise.all(workers);
    const lifetimes = results.flatMap((r) => r.lifetimes);
    const closed = lifetimes.filter((l) => l >= 0).sort((a, b) => a - b);
    return {
      sockets: lifetimes.length,
      boundMs,
      withinBound: closed.filter((l) => l <= boundMs).length,
      neverClosed: lifetimes.length - closed.length,
      refused: results.reduce((s, r) => s + r.refused, 0),
      answered408: results.reduce((s, r) => s + r.answered408, 0),
      p50Ms: pct(closed, 0.5),
      p99Ms: pct(closed, 0.99),
      maxMs: closed.at(-1) ?? 0,
    };
  } finally {
    await server?.kill('SIGKILL');
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}
