import { setTimeout as sleep } from 'node:timers/promises';
import type { ClickHouseEngine } from '@chatlytics/clickhouse';

/**
 * Waits until no merge or mutation of the engine's database has run for three checks in a row
 * (a second apart), `maxSeconds` at most, and returns the seconds waited: a figure measured
 * right after a load would otherwise bill the load's merges to whatever runs beside them.
 */
export async function waitForQuietMerges(ch: ClickHouseEngine, maxSeconds = 600): Promise<number> {
  let waited = 0;
  for (let quiet = 0; quiet < 3 && waited < maxSeconds; waited++) {
    const [m] = await ch.query<{ n: string }>(
      'SELECT (SELECT count() FROM system.merges WHERE database = currentDatabase()) + (SELECT count() FROM system.mutations WHERE database = currentDatabase() AND NOT is_done) AS n');
    quiet = Number(m.n) === 0 ? quiet + 1 : 0;
    await sleep(1_000);
  }
  return waited;
}
