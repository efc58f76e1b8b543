import t from 'tap';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { printMigrations } from '@chatlytics/clickhouse';

/** `npm run cli -- migrate --print`: the DDL of both renderings, with no store opened or created. */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const cliEntry = path.join(root, 'services/standalone/src/cli.ts');

function run(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', cliEntry, ...args], {
    cwd: root, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => { stdout += d; });
  child.stderr!.on('data', (d) => { stderr += d; });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'chatlytics-print-'));
t.teardown(() => fs.rmSync(parent, { recursive: true, force: true }));
const dataDir = path.join(parent, 'never-created');

t.test('single node: the files\' statements, and DATA_DIR is never created', async (t) => {
  const r = await run(['migrate', '--print'], { DATA_DIR: dataDir });
  t.equal(r.code, 0, r.stderr);
  t.equal(r.stdout, printMigrations({ database: 'analytics' }));
  t.match(r.stdout, /CREATE TABLE IF NOT EXISTS events\n/);
  t.notMatch(r.stdout, /ON CLUSTER|Replicated|Distributed/);
  t.notOk(fs.existsSync(dataDir), 'no DATA_DIR, no lock file, no store');
});

t.test('--cluster prints the cluster form without CLICKHOUSE_CLUSTER set', async (t) => {
  const r = await run(['migrate', '--print', '--cluster', 'chatlytics'], { DATA_DIR: dataDir, CLICKHOUSE_DATABASE: 'shop' });
  t.equal(r.code, 0, r.stderr);
  t.equal(r.stdout, printMigrations({ cluster: 'chatlytics', database: 'shop' }));
  t.match(r.stdout, /CREATE TABLE IF NOT EXISTS events_local ON CLUSTER chatlytics/);
  t.match(r.stdout, /ENGINE = Distributed\(chatlytics, shop, events_local, cityHash64\(chatbot_id\)\)/);
  t.match(r.stdout, /-- not run here \(Join is node-local state\)/);
  t.notOk(fs.existsSync(dataDir));
});

t.test('it follows CLICKHOUSE_CLUSTER, and never connects to the server it names', async (t) => {
  // Port 9 (discard): nothing answers there; a connection attempt would fail the command.
  const r = await run(['migrate', '--print'], { DATA_DIR: dataDir, CLICKHOUSE_CLUSTER: 'main', CLICKHOUSE_URL: 'http://127.0.0.1:9' });
  t.equal(r.code, 0, r.stderr);
  t.equal(r.stdout, printMigrations({ cluster: 'main', database: 'analytics' }));
  t.notOk(fs.existsSync(dataDir));
});

t.test('usage errors', async (t) => {
  const a = await run(['migrate', '--cluster', 'main'], { DATA_DIR: dataDir });
  t.equal(a.code, 1);
  t.match(a.stderr, /--cluster goes with --print/);
  const b = await run(['migrate', '--print', '--cluster', 'a-b'], { DATA_DIR: dataDir });
  t.equal(b.code, 1);
  t.match(b.stderr, /is not a cluster name/);
  t.notOk(fs.existsSync(dataDir));
});

t.test('asked of a running server (src/admin), migrate --print prints too and runs nothing', async (t) => {
  const { loadConfig } = await import('@chatlytics/core');
  const { runCommand } = await import('../src/cli/commands.js');
  const config = loadConfig({ DATA_DIR: dataDir });
  const result = await runCommand({ command: 'migrate', print: true, backfill: false, cluster: 'main' }, { config, log: undefined as never });
  t.same(result, { sql: printMigrations({ cluster: 'main', database: 'analytics' }) });
  t.notOk(fs.existsSync(dataDir), 'no store opened');
});
