import { createEventRowsWriter, ID_SLOTS, type ClickHouseEngine } from '@chatlytics/clickhouse';
import { newEventId } from '@chatlytics/events';
import { chTime } from '@chatlytics/testkit';
import { waitForQuietMerges } from '../lib/merges.js';
import { journeys } from './common.js';

const DAY_MS = 86_400_000;
const CHUNK = 100_000;

/**
 * `n` events already stored before the pipeline runs (`--history`): the testkit's journeys, given
 * the measured stream's chatbots (so the copy look-up reads their history) and tokens of their
 * own, spread over the 30 days before now (the look-up's window), with UUID v7 ids of their time.
 * Stored through the writer outside the bus (its own numbering slot, the views fed), then left
 * until no merge runs, so the pipeline's CPU is not billed for the load's merges.
 */
export async function storeHistory(ch: ClickHouseEngine, chatbots: readonly string[], n: number, report: (line: string) => void): Promise<void> {
  const writer = createEventRowsWriter(ch, { slot: ID_SLOTS.runs });
  const start = Date.now() - 30 * DAY_MS;
  const started = performance.now();
  for (let done = 0; done < n; done += CHUNK) {
    const size = Math.min(CHUNK, n - done);
    const rows = journeys(size, 2, (e, i) => {
      const at = start + Math.floor(((done + i) / n) * 30 * DAY_MS);
      return { ...e, chatbot_id: chatbots[(done + i) % chatbots.length], token: `h${e.token}`, event_id: newEventId(at), received_at: chTime(at) };
    });
    await writer.write(rows);
    if ((done / CHUNK) % 20 === 19) report(`  ${(done + size).toLocaleString()} stored`);
  }
  report(`  history of ${n.toLocaleString()} events stored in ${((performance.now() - started) / 1000).toFixed(0)} s; waiting for the merges`);
  await waitForQuietMerges(ch);
}
