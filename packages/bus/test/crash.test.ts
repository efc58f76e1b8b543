import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import { createEmbeddedBus } from '../src/index.js';
import { Collector, testLog, WAIT_LIMIT_MS } from './helpers.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '../../..');
const script = path.join(here, 'fixtures', 'crash-publisher.ts');

/** Runs the publisher until it has acknowledged `acks` publishes, SIGKILLs it, returns the acknowledged ids. */
async function publishUntilKilled(t: Test, dir: string, firstId: number, acks: number): Promise<number[]> {
  const child = spawn(process.execPath, ['--import', 'tsx', script, dir, String(firstId)], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => { err += d; });
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.on('exit', (code, signal) => resolve(signal ?? code)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`publisher acknowledged too little: ${out.split('\n').length - 1} lines; stderr: ${err}`)), WAIT_LIMIT_MS);
    child.stdout.on('data', (d) => {
      out += d;
      // Kill while publishers are mid-flight: this callback runs between acknowledgements.
      if (out.split('\n').length - 1 >= acks) { clearTimeout(timer); child.kill('SIGKILL'); resolve(); }
    });
    void exited.then((how) => { clearTimeout(timer); if (how !== 'SIGKILL') reject(new Error(`publisher exited (${how}): ${err}`)); });
  });
  t.equal(await exited, 'SIGKILL', 'publisher was killed, not stopped');
  // Only whole lines: a line cut by the kill was not fully reported, so it proves nothing.
  const lines = out.split('\n').slice(0, -1);
  return lines.flatMap((l) => l.split(',').map(Number));
}

t.test('SIGKILL mid-stream loses no acknowledged event and duplicates none', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bus-crash-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  // One crash: each child costs seconds of start-up, and reopen-then-append after a torn
  // tail is covered by embedded.test.ts.
  const acknowledged = await publishUntilKilled(t, dir, 0, 500);
  t.ok(acknowledged.length >= 500, `${acknowledged.length} acknowledged events`);

  const bus = await createEmbeddedBus({ dir, log: testLog });
  t.teardown(() => bus.close());
  const total = await bus.lag();
  const c = new Collector();
  const consumer = await bus.consume(c.handler);
  await c.until(total);
  await consumer.stop();
  const consumed = c.accepted.map((m) => (JSON.parse(m.value.toString()) as { id: number }).id);
  const unique = new Set(consumed);
  t.equal(unique.size, consumed.length, 'no event appears twice');
  const missing = acknowledged.filter((id) => !unique.has(id));
  t.same(missing, [], 'every acknowledged event is in the log');
  t.same(c.accepted.map((m) => m.offset), c.accepted.map((_, i) => String(i)), 'offsets are dense: no gap, no garbage record');
});
