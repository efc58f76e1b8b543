/**
 * For tests only (entry points, so spawning and reading the environment are allowed here):
 * real Kafka nodes from scripts/kafka/run.sh, and the services' entry points as processes.
 * Exported as @chatlytics/bus/testing.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export interface KafkaCluster {
  /** The bootstrap list, as KAFKA_BROKERS takes it. */
  brokers: string;
  dir: string;
  /** The JVM pid of node `id` (= broker id), while it runs. */
  nodePid(id: number): number;
  /** Stops every node (SIGTERM to run.sh); the data and ports stay in `dir` for start({ dir }). */
  stop(): Promise<void>;
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/**
 * Starts 1 or 3 KRaft nodes; with `dir` of an earlier cluster, restarts that cluster on the
 * same ports. Resolves once run.sh printed KAFKA_BROKERS (every broker serves metadata).
 */
export async function startKafka(opts: { brokers: 1 | 3; dir?: string }): Promise<KafkaCluster> {
  const dir = opts.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'kafka-test-'));
  const child = spawn('bash', [path.join(REPO_ROOT, 'scripts/kafka/run.sh'), '--brokers', String(opts.brokers), '--dir', dir], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const brokers = await new Promise<string>((resolve, reject) => {
    // The first run may download the broker through Maven: a guard against hanging, not a speed limit.
    const timer = setTimeout(() => reject(new Error(`kafka did not start:\n${out}`)), 300_000);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const m = /^KAFKA_BROKERS=(\S+)$/m.exec(out);
      if (m) { clearTimeout(timer); resolve(m[1]); }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`kafka run.sh exited ${code}:\n${out}`)); });
  });
  return {
    brokers,
    dir,
    nodePid: (id) => Number(fs.readFileSync(path.join(dir, `node-${id}`, 'pid'), 'utf8')),
    async stop() {
      child.kill('SIGTERM');
      await exited(child);
    },
  };
}

export interface ServiceProcess {
  url: string;
  child: ChildProcess;
  /** Everything it printed so far (pino JSON lines). */
  output(): string;
  kill(signal: NodeJS.Signals): Promise<void>;
}

/**
 * Runs a service's entry point (e.g. services/ingest/src/server.ts) with `env` on top of a
 * minimal environment; resolves once it logged "Server listening" (its port must be 0 or free).
 */
export async function startService(entry: string, env: Record<string, string>): Promise<ServiceProcess> {
  const child = spawn(process.execPath, ['--import=tsx', path.join(REPO_ROOT, entry)], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => { out += chunk.toString(); });
  child.stderr!.on('data', (chunk: Buffer) => { out += chunk.toString(); });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setInterval(() => {
      const m = /"msg":"Server listening at (http:\/\/127\.0\.0\.1:\d+)"/.exec(out);
      if (m) { clearInterval(timer); resolve(m[1]); }
    }, 50);
    child.once('exit', (code) => { clearInterval(timer); reject(new Error(`${entry} exited ${code}:\n${out}`)); });
  });
  return {
    url, child,
    output: () => out,
    async kill(signal) {
      child.kill(signal);
      await exited(child);
    },
  };
}

export interface TrackResult {
  status: number;
  retryAfter: string | null;
  /** The event's token (its Kafka key) and when the answer came (epoch ms): where to look when one is missing. */
  token: string;
  answeredAt: number;
}

/**
 * Keeps `concurrency` POSTs to the ingest service's tracking route in flight, each a new event
 * with its own client event id, until stop(); each worker waits `pauseMs` after every answer
 * (a steady rate rather than as fast as the machine goes). Network errors are recorded as status 0.
 */
export function trackLoad(ingestUrl: string, concurrency: number, pauseMs = 0) {
  const results = new Map<string, TrackResult>();
  let running = true;
  const worker = async (w: number) => {
    for (let i = 0; running; i++) {
      const id = crypto.randomUUID();
      const token = `tok_load_${w}_${i % 50}`;
      let result: TrackResult;
      try {
        const res = await fetch(`${ingestUrl}/api/analytics/track`, {
          method: 'POST', headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ event: 'visitor', token, data: { chatbot_id: 'bot-load', event_id: id } }),
        });
        await res.arrayBuffer();
        result = { status: res.status, retryAfter: res.headers.get('retry-after'), token, answeredAt: Date.now() };
      } catch {
        result = { status: 0, retryAfter: null, token, answeredAt: Date.now() };
      }
      results.set(id, result);
      if (pauseMs > 0) await new Promise((r) => setTimeout(r, pauseMs));
    }
  };
  const workers = Array.from({ length: concurrency }, (_, w) => worker(w));
  const count = (status: number) => [...results.values()].filter((r) => r.status === status).length;
  return {
    results,
    count,
    /** Resolves once `n` more events than now got a 200 (bounded: rejects after `limitMs`). */
    async moreAccepted(n: number, limitMs = 120_000): Promise<void> {
      const target = count(200) + n;
      const deadline = Date.now() + limitMs;
      while (count(200) < target) {
        if (Date.now() > deadline) throw new Error(`only ${count(200)} of ${target} events accepted`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async stop(): Promise<void> {
      running = false;
      await Promise.all(workers);
    },
  };
}
