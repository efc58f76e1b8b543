/**
 * The slow-client harness: the ingest entry point (services/ingest/src/server.ts, embedded log)
 * in its own process, and `sockets` clients, spread over worker processes, that each send
 * headers and 10 of 1,000 announced body bytes, then nothing. Every socket must be closed by
 * the server within the request timeout plus the server's checking interval.
 *
 * `npm run bench:slow-clients` runs it at 25,000 sockets with the production timeouts;
 * slow-clients.e2e.test.ts runs it small and fast in the e2e tier.
 * Options (bench): --sockets N --request-timeout-ms N --headers-timeout-ms N --start-delay-ms N
 * --connecting N (connects in flight per worker; the bench's default 0 = all at once) --standalone
 * (attack `npm start` instead of the ingest service alone)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../../..');

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

function listeningUrl(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${out}`)), 60_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /"msg":"Server listening at (http:\/\/127\.0\.0\.1:\d+)"/.exec(out);
      if (m) { clearTimeout(timer); resolve(m[1]); }
    });
    child.stderr!.on('data', (chunk: Buffer) => { out += chunk.toString(); });
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`server exited ${code}:\n${out}`)); });
  });
}

async function runWorker(port: number, count: number, block: number, giveUpMs: number, startDelayMs: number, connecting: number) {
  const child = spawn(process.execPath, ['--import=tsx', path.join(here, 'slow-clients-worker.ts'), '127.0.0.1', String(port), String(count), String(block), String(giveUpMs), String(startDelayMs), String(connecting)], {
    cwd: root, stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => { out += chunk.toString(); });
  const [code] = await once(child, 'exit');
  if (code !== 0) throw new Error(`slow-client worker exited ${code}`);
  return JSON.parse(out) as { lifetimes: number[]; refused: number; answered408: number };
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

export async function runSlowClients(opts: SlowClientsOptions): Promise<SlowClientsResult> {
  const boundMs = opts.requestTimeoutMs + CHECKING_INTERVAL_MS;
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'slow-clients-'));
  const target = TARGETS[opts.target ?? 'ingest'];
  const server = spawn(process.execPath, ['--import=tsx', path.join(root, target.entry)], {
    cwd: root,
    env: {
      PATH: process.env.PATH, DATA_DIR: dataDir, [target.port]: '0', LOG_LEVEL: 'info', KAFKA_BROKERS: '',
      HTTP_REQUEST_TIMEOUT_MS: String(opts.requestTimeoutMs), HTTP_HEADERS_TIMEOUT_MS: String(opts.headersTimeoutMs),
      // The idle timeout would cut a silent socket on its own; set past the bound so the request timeout is what is measured.
      HTTP_IDLE_TIMEOUT_MS: String(opts.requestTimeoutMs * 10),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    const port = Number(new URL(await listeningUrl(server)).port);
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
    server.kill('SIGKILL');
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const result = await runSlowClients({
    sockets: arg('sockets', 25_000),
    requestTimeoutMs: arg('request-timeout-ms', 10_000),
    headersTimeoutMs: arg('headers-timeout-ms', 5000),
    startDelayMs: arg('start-delay-ms', 0),
    connecting: arg('connecting', 0),
    target: process.argv.includes('--standalone') ? 'standalone' : 'ingest',
  });
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exitCode = result.withinBound === result.sockets ? 0 : 1;
}
