import t from 'tap';
import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { until } from './helpers.js';
import { tempDir } from './real-engines.js';

const server = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'src', 'server.ts');

const freePort = () => new Promise<number>((resolve) => {
  const s = net.createServer().listen(0, '127.0.0.1', () => {
    const { port } = s.address() as net.AddressInfo;
    s.close(() => resolve(port));
  });
});

t.test('the entry point migrates, consumes, answers /ready and exits 0 on SIGTERM', async (t) => {
  const dirs = tempDir('consumer-server-');
  t.teardown(() => dirs.remove());
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', server], {
    env: { ...process.env, DATA_DIR: dirs.dir, CONSUMER_PORT: String(port), LOG_LEVEL: 'warn', KAFKA_BROKERS: '', CLICKHOUSE_URL: '' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  t.teardown(() => { if (child.exitCode === null) child.kill('SIGKILL'); });

  let ready: { status: string; stores: Record<string, { status: string }> } | undefined;
  await until(async () => {
    if (child.exitCode !== null) throw new Error(`server exited: ${stderr}`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/ready`);
      if (res.status !== 200) return false;
      ready = await res.json() as typeof ready;
      return true;
    } catch {
      return false;
    }
  }, 'the consumer service to be ready', 90_000);
  t.match(ready, { status: 'ok', stores: { clickhouse: { status: 'ok' }, bus: { status: 'ok', consumer_lag: 0 }, lag: { status: 'ok', lag_seconds: 0 }, consumer: { status: 'ok' } } });
  const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  t.match(metrics, /chatlytics_consumer_lag_messages\{partition="0"\} 0/);
  t.match(metrics, /chatlytics_consumer_lag_seconds 0/);
  child.kill('SIGTERM');
  t.equal(await exited, 0, 'graceful shutdown');
});
