import type { BusMessage, EventBus } from '@chatlytics/bus';
import type { ClickHouseEngine } from '@chatlytics/clickhouse';
import { createConsumer, type Consumer } from '@chatlytics/consumer';
import type { Config, Logger } from '@chatlytics/core';
import { encodeStoredEvent } from '@chatlytics/events';
import type { EventSink } from './backfill.js';

/** How often the bus is asked whether the consumer got past the published messages. */
const POLL_MS = 100;
/** Longer without the oldest waiting message moving means the consumer is stuck: the import fails. */
const STALL_MS = 120_000;

export interface BusSinkDeps {
  config: Config;
  bus: EventBus;
  clickhouse: ClickHouseEngine;
  log: Logger;
  /** A consumer already drains this bus (the running server's): none is started here. */
  consumerRunning: boolean;
}

/**
 * The import's way into ClickHouse: the bus. Without a running consumer (a stopped server, a
 * test, a benchmark) one runs here for the import's length. Stored means the group has
 * committed every message published before `stored()` was called: the bus's oldest uncommitted
 * message is younger than the last publish, or there is none.
 */
export async function openBusSink(deps: BusSinkDeps): Promise<EventSink & { publishMessages(messages: BusMessage[]): Promise<void>; close(): Promise<void> }> {
  let consumer: Consumer | undefined;
  if (!deps.consumerRunning) {
    consumer = createConsumer({ config: deps.config, bus: deps.bus, clickhouse: deps.clickhouse, log: deps.log });
    await consumer.start();
  }
  let publishedAt = 0;
  return {
    async publish(rows) {
      await deps.bus.publish(rows.map(encodeStoredEvent));
      publishedAt = Date.now();
    },
    /** Messages already encoded (order states: cli import-orders). */
    async publishMessages(messages) {
      await deps.bus.publish(messages);
      publishedAt = Date.now();
    },
    async stored() {
      let last: number | null = null;
      let movedAt = Date.now();
      for (;;) {
        const { oldestUncommittedAt } = await deps.bus.lagReport();
        if (oldestUncommittedAt === null || oldestUncommittedAt > publishedAt) return;
        if (oldestUncommittedAt !== last) { last = oldestUncommittedAt; movedAt = Date.now(); }
        if (Date.now() - movedAt > STALL_MS) throw new Error(`the consumer has not stored the imported events after ${STALL_MS / 1000} s (is it running?)`);
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
    },
    async close() {
      await consumer?.stop();
    },
  };
}
