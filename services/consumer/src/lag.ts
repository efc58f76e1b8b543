import type { EventBus, LagReport } from '@chatlytics/bus';

/** What /ready and /metrics say about the lag (snake_case: it is the readiness body). */
export interface LagStatus {
  /** Messages published and not yet committed, summed over partitions. */
  lag_messages: number;
  /** Age of the oldest acknowledged event not yet in ClickHouse; 0 when nothing waits. */
  lag_seconds: number;
  /** lag_seconds as a fraction of the bus's retention; null when the bus never deletes unconsumed events. */
  retention_used: number | null;
  alert_seconds: number;
  degraded: boolean;
}

export interface LagProbe {
  report(): Promise<LagReport>;
  status(): Promise<LagStatus>;
}

/**
 * The lag, read from the bus when asked (a scrape, a readiness probe), never polled. One read
 * answers every caller for a second: a scrape collects three gauges from the same report, and
 * the Kafka report costs a few dozen offset lookups.
 */
export function createLagProbe(bus: Pick<EventBus, 'lagReport'>, alertSeconds: number, now: () => number = Date.now): LagProbe {
  let cached: { at: number; report: Promise<LagReport> } | undefined;
  const report = () => {
    if (!cached || now() - cached.at > 1000) {
      const entry = { at: now(), report: bus.lagReport() };
      // A failed read is not kept: the next caller asks again.
      entry.report.catch(() => { if (cached === entry) cached = undefined; });
      cached = entry;
    }
    return cached.report;
  };
  return {
    report,
    async status() {
      const r = await report();
      const seconds = r.oldestUncommittedAt === null ? 0 : Math.max(0, (now() - r.oldestUncommittedAt) / 1000);
      return {
        lag_messages: r.partitions.reduce((sum, p) => sum + p.messages, 0),
        lag_seconds: Math.round(seconds * 10) / 10,
        retention_used: r.retentionMs ? seconds * 1000 / r.retentionMs : null,
        alert_seconds: alertSeconds,
        degraded: seconds >= alertSeconds,
      };
    },
  };
}
