/**
 * One fill of `npm run bench -- backfill` in a process of its own, so that its peak RSS is the
 * fill's: `tsx bench/backfill/child.ts <whole|batched> <data dir> <batch rows>`. The store in the
 * data directory is at migration 0120 with rows; migration 0130 is applied up to its fill, then
 * the fill runs as the migration writes it (`whole`) or in batches of chatbots (`batched`).
 * Prints one JSON line.
 */
import fs from 'node:fs';
import { backfillTokenIds, batchedFillName, createChdbEngine, readMigrations } from '@chatlytics/clickhouse';
import { benchLogger } from '../lib/report.js';

const [mode, dir, batchRows] = process.argv.slice(2);
const engine = await createChdbEngine({ path: dir, database: 'fill', log: benchLogger('warn') });
const migration = readMigrations().find((m) => m.version === 130)!;
const isFill = (s: string) => batchedFillName(s) === 'token_ids';
for (const s of migration.statements.filter((s) => !isFill(s))) await engine.command(s, { database: engine.database });
const t0 = performance.now();
let batches = 1;
if (mode === 'whole') {
  for (const s of migration.statements.filter(isFill)) await engine.command(s, { database: engine.database });
} else {
  batches = (await backfillTokenIds(engine, { batchRows: Number(batchRows) })).batches;
}
const fillMs = performance.now() - t0;
const [check] = await engine.query<{ without: string; tokens: string; ids: string }>(
  'SELECT countIf(token_id = 0) AS without, uniqExact(chatbot_id, token) AS tokens, uniqExact(chatbot_id, token_id) AS ids FROM events');
const hwmKb = Number(/VmHWM:\s*(\d+)/.exec(fs.readFileSync('/proc/self/status', 'utf8'))![1]);
await engine.close();
process.stdout.write(`${JSON.stringify({ mode, fillMs, batches, peakRssMb: hwmKb / 1024, ...check })}\n`);
