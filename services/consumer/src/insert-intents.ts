import fs from 'node:fs';
import path from 'node:path';

/**
 * The inserts begun and not acknowledged yet, as one small file each (only with the embedded
 * ClickHouse, which runs inside this process). A process killed during an insert can leave it
 * applied in part: `events` written, some of the tables its views feed not. The next start finds
 * the file and recomputes the days of the rows that insert stored (consumer.ts), before it
 * consumes anything; the redelivered batch then leaves those rows out as stored.
 */
export interface InsertIntent {
  /** The insert's `insert_key`: its rows in `events` carry it. */
  key: string;
  /** received_at range of its rows, ms: bounds the search for them. */
  from: number;
  to: number;
}

export interface InsertIntents {
  /** Records the insert; the returned function forgets it once ClickHouse acknowledged it. */
  begin(intent: InsertIntent): () => void;
  pending(): InsertIntent[];
  forget(intent: InsertIntent): void;
}

export function createInsertIntents(dir: string): InsertIntents {
  fs.mkdirSync(dir, { recursive: true });
  const file = (key: string) => path.join(dir, `${key}.json`);
  const forget = (intent: InsertIntent) => fs.rmSync(file(intent.key), { force: true });
  return {
    begin(intent) {
      // No fsync: what this guards against is the process dying, and the page cache outlives it.
      fs.writeFileSync(file(intent.key), JSON.stringify(intent));
      return () => forget(intent);
    },
    pending() {
      return fs.readdirSync(dir).filter((f) => f.endsWith('.json')).flatMap((f) => {
        try {
          return [JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as InsertIntent];
        } catch {
          // Written in part when the process died: that insert had not started.
          fs.rmSync(path.join(dir, f), { force: true });
          return [];
        }
      });
    },
    forget,
  };
}

/** A server ClickHouse finishes an insert whoever sent it: nothing to record. */
export const NO_INTENTS: InsertIntents = { begin: () => () => undefined, pending: () => [], forget: () => undefined };
