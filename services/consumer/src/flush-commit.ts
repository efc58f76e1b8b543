import type { EventBus } from '@chatlytics/bus';
import { createTokenIdStore, type ClickHouseEngine } from '@chatlytics/clickhouse';
import type { StoredOrder } from '@chatlytics/events';
import { isRetriable, type Logger } from '@chatlytics/core';
import { returnBody } from './body-pool.js';
import { toDeadLetter, toRejectedRow } from './dead-letter.js';
import { contentToken } from './dedup-token.js';
import { ConsumerErrorCode } from './errors.js';
import { IdKey } from './id-table.js';
import type { ConsumerMetrics } from './metrics.js';
import type { RecentIds } from './recent-ids.js';
import { retrying, type RetryContext } from './retry.js';
import { forEachSelected, type Selection } from './row-selection.js';
import type { RejectedMessage, Segment } from './segment.js';

export interface FlushCommitDeps {
  clickhouse: ClickHouseEngine;
  bus: Pick<EventBus, 'publishDeadLetter'>;
  log: Logger;
  metrics: Pick<ConsumerMetrics, 'rejects' | 'rowsWritten' | 'freshnessSeconds'> & Partial<Pick<ConsumerMetrics, 'ordersWritten'>>;
  recent: RecentIds;
  retry: RetryContext;
  /**
   * Poison found while replaying was already dead-lettered on its first pass (or IS a dead
   * letter): recording it again would only duplicate it.
   */
  recordRejects: boolean;
  tokenPrefix: string;
}

/**
 * What makes a flush final once ClickHouse acknowledged its insert, before its handlers resolve
 * and the bus commits their offsets: the order states stored (`orders`), the poison recorded (`events_rejected` and the dead-letter
 * stream), the inserted ids remembered for the duplicate check, the flush counted, and the
 * segments' bodies returned to the pool. A failure here fails the flush: nothing is committed.
 */
export function createFlushCommit(deps: FlushCommitDeps) {
  const { clickhouse, log, metrics, retry } = deps;
  const tokenIds = createTokenIdStore(clickhouse);

  /**
   * Each order state with its token's id (clickhouse/README.md, "orders"): looked up in
   * `token_ids` after the flush's own rows and ids were stored, so a token first seen in this
   * flush has one. 0 when it has none yet (an order ahead of its visitor's events, or no token):
   * the statistics look such an order's token up when they read it. Stored with the order so
   * that reading a shop's orders does not scan every token of the shop.
   */
  async function withTokenIds(orders: readonly StoredOrder[]): Promise<(StoredOrder & { token_id: string })[]> {
    const named = orders.filter((o) => o.token !== '');
    const ids = named.length === 0 ? [] : await retrying('look up the orders\' token ids', retry, () => tokenIds.lookup(
      named.map((o) => ({ key: `${o.chatbot_id}\n${o.token}`, chatbot: o.chatbot_id, token: o.token }))));
    const idOf = new Map(named.map((o, i) => [`${o.chatbot_id}\n${o.token}`, ids[i]]));
    return orders.map((o) => ({ ...o, token_id: (o.token === '' ? 0n : idOf.get(`${o.chatbot_id}\n${o.token}`) ?? 0n).toString() }));
  }

  async function recordRejects(rejects: RejectedMessage[], stream: string): Promise<void> {
    for (const r of rejects) metrics.rejects.inc({ reason: r.reason });
    if (rejects.length === 0) return;
    if (!deps.recordRejects) {
      log.warn({ count: rejects.length, stream, first: rejects[0].error }, 'poison while replaying: already recorded on its first pass, not recorded again');
      return;
    }
    const token = contentToken(`${deps.tokenPrefix}:rejected`, rejects.map((r) => `${stream}:${r.partition}:${r.offset}`));
    try {
      await retrying('insert into events_rejected', retry, () => clickhouse.insert('events_rejected', rejects.map(toRejectedRow), { dedupToken: token }));
    } catch (err) {
      if (isRetriable(err) || (err as { code?: unknown }).code === ConsumerErrorCode.StoppedDuringRetry) throw err;
      // The dead-letter stream below is the durable record; the table is the queryable copy.
      log.error({ err, count: rejects.length }, 'events_rejected refused the rows; they are still dead-lettered');
    }
    // Set-aside purchases are a decision, not poison: the table is their record.
    const poison = rejects.filter((r) => !r.setAside);
    if (poison.length === 0) return;
    await retrying('publish dead letters', retry, () => deps.bus.publishDeadLetter(poison.map((r) => toDeadLetter(r, stream))));
    const first = poison[0];
    log.warn({ count: poison.length, reasons: [...new Set(poison.map((r) => r.reason))], first: { partition: first.partition, offset: first.offset, step: first.step, error: first.error } }, 'poison messages dead-lettered');
  }

  /**
   * The flush's order states into `orders`, before any offset is committed. A refusal fails the
   * flush (nothing committed, the batch redelivered): an order is never dropped. Inserting a
   * state twice is harmless (the table keeps the highest version, the same one), and the token
   * is derived from the states so a retried insert is a no-op where it was applied.
   */
  async function insertOrders(segments: readonly Segment[]): Promise<void> {
    const orders = segments.flatMap((s) => s.orders);
    const refunds = segments.flatMap((s) => s.refunds);
    if (orders.length > 0) {
      const token = contentToken(`${deps.tokenPrefix}:orders`, orders.map((o) => `${o.chatbot_id}:${o.order_id}:${o.version}`));
      const rows = await withTokenIds(orders);
      await retrying('insert into orders', retry, () => clickhouse.insert('orders', rows, { dedupToken: token }));
      metrics.ordersWritten?.inc(orders.length);
    }
    if (refunds.length > 0) {
      const token = contentToken(`${deps.tokenPrefix}:order_refunds`, refunds.map((r) => `${r.chatbot_id}:${r.order_id}:${r.refund_id}:${r.amount}`));
      await retrying('insert into order_refunds', retry, () => clickhouse.insert('order_refunds', refunds, { dedupToken: token }));
    }
  }

  return async function commit(segments: readonly Segment[], selection: Selection, rejects: RejectedMessage[]): Promise<void> {
    await insertOrders(segments);
    await recordRejects(rejects, segments[0]?.stream ?? 'events');
    const key = new IdKey();
    forEachSelected(selection, (s, i) => deps.recent.addKey(key.load(s.body, s.rowStarts[i])));
    metrics.rowsWritten.inc(selection.count);
    const now = Date.now();
    for (const s of segments) {
      if (Number.isFinite(s.oldestBusTimestamp)) metrics.freshnessSeconds.observe(Math.max(0, now - s.oldestBusTimestamp) / 1000);
    }
    // Stored and recorded: nothing reads these rows' bytes any more.
    for (const s of segments) returnBody(s.storage);
  };
}
