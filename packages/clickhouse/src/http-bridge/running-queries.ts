import { randomUUID } from 'node:crypto';

/**
 * The data team's queries while they run, found in the engine's system.processes by a comment
 * the interface puts in front of each (`/* chatlytics-sql:<uuid> *\/`), for two things chdb's
 * API does not give: the peak memory of a query (sampled every `intervalMs` while any runs;
 * null for a query that ended before the first sample) and cancelling one (KILL QUERY, which
 * the embedded engine honours: an aborted chdb call would only stop waiting for it).
 */
export class RunningQueries {
  private readonly peaks = new Map<string, number | null>();
  private timer: NodeJS.Timeout | undefined;
  private sampling = false;

  constructor(private readonly control: (sql: string) => Promise<string>, private readonly intervalMs = 200) {}

  /** Registers a query; `prefix` goes in front of its SQL. */
  start(): { id: string; prefix: string } {
    const id = randomUUID();
    this.peaks.set(id, null);
    this.timer ??= setInterval(() => void this.sample(), this.intervalMs).unref();
    return { id, prefix: `/* chatlytics-sql:${id} */ ` };
  }

  /** Forgets the query; returns the highest memory use sampled, in bytes. */
  finish(id: string): number | null {
    const peak = this.peaks.get(id) ?? null;
    this.peaks.delete(id);
    if (this.peaks.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
    return peak;
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
        "SELECT extract(query, '^/\\\\* chatlytics-sql:([0-9a-f-]{36})') AS id, peak_memory_usage FROM system.processes WHERE query LIKE '/* chatlytics-sql:%'",
      );
      for (const line of text.split('\n')) {
        const [id, peak] = line.split('\t');
        if (!this.peaks.has(id)) continue;
        this.peaks.set(id, Math.max(this.peaks.get(id) ?? 0, Number(peak)));
      }
    } catch {
      // A missed sample only makes the logged peak a lower bound.
    } finally {
      this.sampling = false;
    }
  }
}
