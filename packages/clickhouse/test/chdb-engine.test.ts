import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createLogger } from '@chatlytics/core';
import { createChdbEngine } from '../src/chdb-engine.js';
import { engineContract } from './contract.js';

// chdb binds one data directory per process; tap runs each file in its own process.
const dir = mkdtempSync(path.join(tmpdir(), 'chatlytics-chdb-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

engineContract(t, () => createChdbEngine({ path: dir, database: 'contract', log: createLogger('silent') }));

// chdb binds parameters for one query at a time per process, so a page's statistics would run
// in series on a 2-core machine; the engine gives each a free connection with its parameters in
// the text. Shown without a clock: while one query with parameters runs, a second one sees it in
// system.processes (with `connections: 1` it cannot, and this test fails).
t.test('bound queries on two connections run at the same time', async (t) => {
  const engine = await createChdbEngine({ path: dir, database: 'contract_parallel', log: createLogger('silent'), connections: 2 });
  t.teardown(() => engine.close());
  const marker = `parallel-${process.pid}`;
  const slow = engine.query("SELECT sleepEachRow(0.5), {m:String} AS m FROM numbers(6) SETTINGS max_block_size = 1", { m: marker });
  let seen = false;
  for (let i = 0; i < 40 && !seen; i++) {
    const [row] = await engine.query<{ n: string }>(
      "SELECT count() AS n FROM system.processes WHERE query LIKE {pattern:String} AND query NOT LIKE '%system.processes%'",
      { pattern: `%${marker}%` });
    seen = row.n !== '0';
  }
  t.ok(seen, 'the second query ran while the first was still running');
  await slow;
});


// Merges and mutations yield the CPU to queries (an erasure does not slow the statistics):
// the setting the engine's first Session gives the process, as priorities.xml gives a server.
t.test('background merges and mutations run at nice 19', async (t) => {
  const engine = await createChdbEngine({ path: dir, database: 'contract_nice', log: createLogger('silent') });
  t.teardown(() => engine.close());
  const [row] = await engine.query<{ value: string }>("SELECT value FROM system.server_settings WHERE name = 'os_threads_nice_value_merge_mutate'");
  t.equal(row?.value, '19');
});
