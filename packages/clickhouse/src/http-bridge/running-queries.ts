import { randomUUID } from 'node:crypto';

/**
 * The data team's queries while they run, found in the engine's system.processes by a comment
 * the interface puts in front of each (`/* chatlytics-sql:<uuid> *\/`), for what chdb's API
 * does not give: the rows and bytes a query read (chdb's result counts only its output) and
 * its peak memory, sampled every `intervalMs` while any runs, so lower bounds that miss the
 * last interval (null/0 for a query that ended before the first sample); and cancelling one
 * (KILL QUERY, which the embedded engine honours: an aborted chdb call would only stop
 * waiting for it).
 */
export interface Sampled { peakMemory: number | null; readRows: number; readBytes: number }

export class RunningQueries {
  private readonly seen = new Map<string, Sampled>();
  private timer: NodeJS.Timeout | undefined;
  private sampling = false;

  constructor(private readonly control: (sql: string) => Promise<string>, private readonly intervalMs = 100) {}

  /** Registers a query; `prefix` goes in front of its SQL. */
  start(): { id: string; prefix: string } {
    const id = randomUUID();
    this.seen.set(id, { peakMemory: null, readRows: 0, readBytes: 0 });
    this.timer ??= setInterval(() => void this.sample(), this.intervalMs).unref();
    return { id, prefix: `/* chatlytics-sql:${id} */ ` };
  }

  /** Forgets the query; returns what was last sampled of it. */
  finish(id: string): Sampled {
    const sampled = this.seen.get(id) ?? { peakMemory: null, readRows: 0, readBytes: 0 };
    this.seen.delete(id);
    if (this.seen.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
    return sampled;
  }

  /** Asks the engine to cancel the query; it then fails with 394 QUERY_WAS_CANCELLED. */
  async kill(id: string): Promise<void> {
    // id is our own UUID (hex and dashes), so it is safe inside the LIKE pattern.
    await this.control(`KILL QUERY WHERE query LIKE '/* chatlytics-sql:${id} */%' ASYNC FORMAT Null`);
  }

  private async sample(): Promise<void> {
    if (this.sampling) return;
    this.sampling = true;
    try {
      const text = await this.control(
        "SELECT extract(query, '^/\\\\* chatlytics-sql:([0-9a-f-]{36})') AS id, peak_memory_usage, read_rows, read_bytes FROM system.processes WHERE query LIKE '/* chatlytics-sql:%'",
      );
      for (const line of text.split('\n')) {
        const [id, peak, rows, bytes] = line.split('\t');
        const q = this.seen.get(id);
        if (!q) continue;
        q.peakMemory = Math.max(q.peakMemory ?? 0, Number(peak));
        q.readRows = Math.max(q.readRows, Number(rows));
        q.readBytes = Math.max(q.readBytes, Number(bytes));
      }
    } catch {
      // A missed sample only makes the logged numbers lower bounds.
    } finally {
      this.sampling = false;
    }
  }
}
