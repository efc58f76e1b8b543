import { DAY_MS, HOUR_MS } from '@chatlytics/core';
import { clickhouseTime, sqlFile, type ClickHouseEngine } from '@chatlytics/clickhouse';
import { EUR_RATES } from '@chatlytics/events';
import { toInt } from './numbers.js';
import { dedupLookbackFrom } from './retry-lookback.js';
import { NO_SEGMENT, segmentParams, type SegmentFilter } from './segment.js';
import type { StatsWindow } from './window.js';

/**
 * The whole hours of W = [from, to] (to inclusive, to the millisecond), [hoursFrom, hoursTo),
 * and the whole UTC days among them, [daysFrom, daysTo): the statistics read whole days from the
 * daily aggregates, the other whole hours from the hourly ones, the rest of W row by row. A range
 * is empty (its two ends equal) when W holds no whole hour or day.
 */
export function wholeHours(w: StatsWindow): { hoursFrom: Date; hoursTo: Date; daysFrom: Date; daysTo: Date } {
  const hoursFrom = Math.ceil(w.from.getTime() / HOUR_MS) * HOUR_MS;
  const hoursTo = Math.max(hoursFrom, Math.floor((w.to.getTime() + 1) / HOUR_MS) * HOUR_MS);
  const daysFrom = Math.ceil(hoursFrom / DAY_MS) * DAY_MS;
  const daysTo = Math.max(daysFrom, Math.floor(hoursTo / DAY_MS) * DAY_MS);
  return { hoursFrom: new Date(hoursFrom), hoursTo: new Date(hoursTo), daysFrom: new Date(daysFrom), daysTo: new Date(daysTo) };
}

/**
 * The bound parameters every windowed statistic's query file takes (the segment's:
 * shared/segment_tokens.sql). The hourly aggregates hold every token, so a statistic filtered by
 * a segment reads the whole window row by row: its whole hours are then empty.
 */
export function statsQueryParams(chatbotId: string, w: StatsWindow, segment: SegmentFilter = NO_SEGMENT) {
  const segmentBound = segmentParams(segment);
  const { hoursFrom, hoursTo, daysFrom, daysTo } = segmentBound.segment_filtered
    ? { hoursFrom: w.from, hoursTo: w.from, daysFrom: w.from, daysTo: w.from }
    : wholeHours(w);
  const seconds = (d: Date) => clickhouseTime(d).slice(0, 19);
  return {
    chatbot_id: chatbotId, from: clickhouseTime(w.from), to: clickhouseTime(w.to), dedup_lookback_from: clickhouseTime(dedupLookbackFrom(w.from)),
    ...segmentBound,
    // Whole seconds: the aggregates' hours are DateTime.
    hours_from: seconds(hoursFrom), hours_to: seconds(hoursTo), days_from: seconds(daysFrom), days_to: seconds(daysTo),
  };
}

/** The static EUR table as the two bound arrays of shared/cart_value.sql (one currency, one rate, in the same order). */
export const EUR_PARAMS = { eur_currencies: Object.keys(EUR_RATES), eur_rates: Object.values(EUR_RATES) };

export type Row = Record<string, unknown>;

/** Whose rows a query reads: a statistic's context, or a chatbot's window alone. */
export interface Where { chatbot: { id: string }; window: StatsWindow; segment?: SegmentFilter }

/** The rows of a statistic's query file, bound with statsQueryParams and `extra`. */
export function readRows(clickhouse: ClickHouseEngine, file: string, where: Where, extra: Row = {}): Promise<Row[]> {
  return clickhouse.query<Row>(sqlFile(file), { ...statsQueryParams(where.chatbot.id, where.window, where.segment), ...extra });
}

/** The named counts of a row as numbers (ClickHouse quotes 64-bit integers); a missing row counts 0. */
export const numbersOf = <K extends string>(row: Row | undefined, keys: readonly K[]) =>
  Object.fromEntries(keys.map((k) => [k, toInt(row?.[k])])) as Record<K, number>;
