import t from 'tap';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createEmbeddedBus } from '@chatlytics/bus';
import { events, toMessage } from './events.js';
import { silent } from './helpers.js';
import { tempDir } from './real-engines.js';

const child = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'crash-child.ts');

function run(env: Record<string, string>): Promise<{ code: number | null; signal: NodeJS.Signals | null; lines: Record<string, number>[] }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', 'tsx', child], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.on('data', (d) => { out += d; });
    p.on('error', reject);
    p.on('exit', (code, signal) => resolve({ code, signal, lines: out.split('\n').filter(Boolean).map((l) => JSON.parse(l)) }));
  });
}

async function publish(busDir: string, n: number, from: number, marked?: number) {
  const bus = await createEmbeddedBus({ dir: busDir, log: silent });
  const sent = events(n, from);
  if (marked !== undefined) sent[marked] = { ...sent[marked], data: '{"note":"slow-marker"}' };
  await bus.publish(sent.map(toMessage));
  await bus.close();
}

t.test('SIGKILL between insert and commit: after a restart every event is stored once, raw rows not doubled', async (t) => {
  const dirs = tempDir('consumer-crash-');
  t.teardown(() => dirs.remove());
  const busDir = path.join(dirs.dir, 'bus');
  const chdbDir = path.join(dirs.dir, 'clickhouse');
  await publish(busDir, 2_500, 0);

  const crashed = await run({ MODE: 'crash', BUS_DIR: busDir, CHDB_DIR: chdbDir, BATCH: '1000', DATA_DIR: dirs.dir });
  t.equal(crashed.signal, 'SIGKILL', 'the first life died by SIGKILL');
  // Two inserts may be in flight at once (concurrentWrites): the kill comes after the first
  // one finished, when the second may have been written as well; neither is committed.
  t.equal(crashed.lines.length, 1, 'killed after writing its first insert');
  t.ok(crashed.lines[0].inserted >= 1_000, 'its first insert was stored');

  // More traffic arrives meanwhile, and the restarted consumer cuts batches differently,
  // so the redelivery cannot match the first insert batch for batch.
  await publish(busDir, 500, 2_500);
  const restarted = await run({ MODE: 'drain', BUS_DIR: busDir, CHDB_DIR: chdbDir, BATCH: '700', DATA_DIR: dirs.dir });
  t.equal(restarted.code, 0);
  const [result] = restarted.lines;
  // Counted by the second life before it consumed: the dying process's own count can miss
  // the second insert, which may land between that count and the SIGKILL.
  const interrupted = result.storedBefore;
  t.ok(interrupted === 1_000 || interrupted === 2_000, `one or two 1,000-message batches were stored uncommitted (${interrupted})`);
  t.equal(result.distinct, 3_000, 'every event sent is stored');
  t.equal(result.raw, 3_000, 'the raw row count did not grow by the redelivered rows');
  t.equal(result.duplicates, interrupted, 'exactly the rows of the interrupted inserts were found stored and left out');
  t.ok(result.fencedBatches >= 2, 'the redelivery stayed fenced until it passed the stored rows');
  t.equal(result.differences, 0, 'every aggregate is what events says');
});

t.test('SIGKILL while an insert is applied in part: the next start completes its aggregates, then consumes', async (t) => {
  const dirs = tempDir('consumer-crash-mid-');
  t.teardown(() => dirs.remove());
  const busDir = path.join(dirs.dir, 'bus');
  const chdbDir = path.join(dirs.dir, 'clickhouse');
  // The marker row in the second batch of 1,000: the first batch is stored whole before it.
  await publish(busDir, 2_500, 0, 1_500);

  const crashed = await run({ MODE: 'crash-mid', BUS_DIR: busDir, CHDB_DIR: chdbDir, BATCH: '1000', DATA_DIR: dirs.dir });
  t.equal(crashed.signal, 'SIGKILL', 'killed while the insert with the marker row was being completed');
  t.ok(crashed.lines[0].inserted >= 2_000, `events held that insert's rows (${crashed.lines[0].inserted})`);
  t.ok(crashed.lines[0].differences > 0, `some aggregates lacked them (${crashed.lines[0].differences} differences)`);

  const restarted = await run({ MODE: 'drain', BUS_DIR: busDir, CHDB_DIR: chdbDir, BATCH: '700', DATA_DIR: dirs.dir });
  t.equal(restarted.code, 0);
  const [result] = restarted.lines;
  t.equal(result.raw, 2_500, 'every event stored once');
  t.equal(result.differences, 0, 'every aggregate is what events says: the interrupted insert\'s days were computed again');
});
