/**
 * What the pipeline benches (embedded.ts, kafka.ts) and the views bench share: the testkit's
 * journeys as rows, the baseline of direct inserts, and the steady publisher of the freshness phase.
 */
import { randomUUID } from 'node:crypto';
import type { BusMessage, EventBus } from '@chatlytics/bus';
import type { ClickHouseEngine } from '@chatlytics/clickhouse';
import type { StoredEvent } from '@chatlytics/events';
import { generateEvents } from '@chatlytics/testkit';

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
/** Events per second of `n` events in `ms`, rounded. */
export const rate = (n: number, ms: number): number => Math.round(n / (ms / 1000));
export const toMessage = (e: StoredEvent): BusMessage => ({ key: e.token, value: Buffer.from(JSON.stringify(e)) });

export async function count(ch: ClickHouseEngine): Promise<number> {
  const [row] = await ch.query<{ n: string }>('SELECT count() AS n FROM events');
  return Number(row.n);
}

/**
 * `n` rows of the testkit's journeys (2,000 users of a new chatbot per seed, beside
 * `otherChatbots` others), each passed through `row` with its index and seed.
 */
export function journeys(n: number, otherChatbots: number, row: (e: StoredEvent, i: number, seed: number) => StoredEvent = (e) => e): StoredEvent[] {
  const out: StoredEvent[] = [];
  for (let seed = 1; out.length < n; seed++) {
    const others = Array.from({ length: otherChatbots }, () => randomUUID());
    for (const e of generateEvents({ seed, now: Date.UTC(2026, 5, 1), chatbotId: randomUUID(), otherChatbotIds: others, users: 2_000 })) {
      if (out.length === n) break;
      out.push(row(e, out.length, seed));
    }
  }
  return out;
}

/**
 * The baseline: `messages` inserted straight into `events_input_v2`, `rows` per insert, no bus,
 * no consumer; checked complete, then its database dropped (its background merges would
 * otherwise go on stealing the cores from the pipeline's run) and the engine closed.
 */
export async function baselineInsert(ch: ClickHouseEngine, database: string, messages: BusMessage[], rows: number): Promise<{ ms: number; cpuUs: number }> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  for (let i = 0; i < messages.length; i += rows) {
    await ch.insert('events_input_v2', Buffer.concat(messages.slice(i, i + rows).flatMap((m) => [m.value, Buffer.from('\n')])));
  }
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  if ((await count(ch)) !== messages.length) throw new Error('baseline lost rows');
  await ch.command(`DROP DATABASE ${database} SYNC`);
  await ch.close();
  return { ms, cpuUs: used.user + used.system };
}

/**
 * The steady load of the freshness phase: `perTick` events published every 10 ms for `seconds`,
 * paced on the schedule, not on the previous publish (a slow one is caught up); `acked(tick)`
 * after each acknowledgement. `publishing()` is true until the last publish was acknowledged.
 */
export function steadyPublish(bus: EventBus, seconds: number, perTick: number, event: (tick: number, i: number) => StoredEvent, acked: (tick: number) => void) {
  let publishing = true;
  const done = (async () => {
    const t0 = performance.now();
    for (let tick = 0; performance.now() - t0 < seconds * 1000; tick++) {
      await bus.publish(Array.from({ length: perTick }, (_, i) => toMessage(event(tick, i))));
      acked(tick);
      const wait = t0 + (tick + 1) * 10 - performance.now();
      if (wait > 0) await sleep(wait);
    }
    publishing = false;
  })();
  return { done, publishing: () => publishing };
}
