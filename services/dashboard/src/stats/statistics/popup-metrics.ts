import Type, { type Static } from 'typebox';
import { compareBytes } from '../insights-report.js';
import { percent, toInt } from '../numbers.js';
import { readRows, type Row } from '../params.js';
import { Count, Rate, Window, WindowedQuery } from '../schemas.js';
import { defineStatistic } from '../statistic.js';

export const PopupMetricsResponse = Type.Object({
  ...Window,
  metrics: Type.Array(Type.Object({
    popup_version: Type.String(),
    popup_displayed_count: Count,
    popup_opened_count: Count,
    open_rate: Rate,
    other_versions: Type.Optional(Type.Integer({ minimum: 1, description: 'only on the last row, `(other)`: how many versions beyond the 50 shown it sums' })),
  }), { maxItems: 51, description: 'at most 50 versions (the most displayed, in version order), then one `(other)` row summing the rest' }),
  conversations: Type.Object({
    total: Count,
    from_popup: Count,
    from_chat_button: Count,
    popup_ratio: Rate,
  }),
});

const QUERY = 'stats/popup_metrics';

export interface PopupRow { popup_version: string; popup_displayed_count: number; popup_opened_count: number }
export interface PopupConversations { total: number; from_popup: number; from_chat_button: number }

/**
 * Per the statistics definitions: popup-metrics shows at most this many versions. Versions are
 * anonymous input; without a bound one batch of invented versions grew a shop's analytics page
 * by a megabyte.
 */
export const POPUP_VERSIONS_SHOWN = 50;
/** The row the versions beyond POPUP_VERSIONS_SHOWN are summed into; `other_versions` tells it from a version of that name. */
export const OTHER_POPUP_VERSIONS = '(other)';

type PopupMetricRow = PopupRow & { other_versions?: number };

/**
 * The POPUP_VERSIONS_SHOWN versions with the most displays (then opens, then version byte
 * order), still in version order, and one `(other)` row last with the exact sums of the rest.
 */
export function boundPopupRows(rows: readonly PopupRow[], shown = POPUP_VERSIONS_SHOWN): PopupMetricRow[] {
  if (rows.length <= shown) return [...rows];
  const ranked = [...rows].sort((a, b) => b.popup_displayed_count - a.popup_displayed_count
    || b.popup_opened_count - a.popup_opened_count || compareBytes(a.popup_version, b.popup_version));
  const kept = ranked.slice(0, shown).sort((a, b) => compareBytes(a.popup_version, b.popup_version));
  const rest = ranked.slice(shown);
  const other: PopupMetricRow = {
    popup_version: OTHER_POPUP_VERSIONS,
    popup_displayed_count: rest.reduce((n, r) => n + r.popup_displayed_count, 0),
    popup_opened_count: rest.reduce((n, r) => n + r.popup_opened_count, 0),
    other_versions: rest.length,
  };
  return [...kept, other];
}

/** One query for both blocks (stats/popup_metrics.sql): popup rows, then conversation rows told apart by `is_conversation`. */
function split(all: Row[]): { rows: PopupRow[]; conversations: PopupConversations } {
  const isConversation = (r: Row) => toInt(r.is_conversation) === 1;
  const conversations = { total: 0, from_popup: 0, from_chat_button: 0 };
  for (const r of all.filter(isConversation)) {
    const n = toInt(r.conversations);
    conversations.total += n;
    if (r.key === 'popup') conversations.from_popup += n;
    if (r.key === 'chat_button') conversations.from_chat_button += n;
  }
  return {
    rows: all.filter((r) => !isConversation(r)).map((r) => ({
      popup_version: String(r.key),
      popup_displayed_count: toInt(r.popup_displayed_count),
      popup_opened_count: toInt(r.popup_opened_count),
    })),
    conversations,
  };
}

/** Popup displays and opens per version, and where the conversations started. */
export const popupMetrics = defineStatistic()({
  name: 'popup-metrics',
  summary: 'Popup displays and opens per version; conversation starts',
  query: QUERY,
  frame: 'days',
  compare: true,
  querystring: WindowedQuery,
  response: PopupMetricsResponse,
  read: async ({ clickhouse }, ctx) => split(await readRows(clickhouse, QUERY, ctx)),
  present: ({ rows, conversations }) => ({
    metrics: boundPopupRows(rows).map((r) => ({ ...r, open_rate: percent(r.popup_opened_count, r.popup_displayed_count) })),
    conversations: { ...conversations, popup_ratio: percent(conversations.from_popup, conversations.total) },
  }),
  // One row per version; `other_versions` is filled on the summed `(other)` row alone. The
  // conversation starts are no version's: they stay in the JSON answer.
  csvTable: (body: Static<typeof PopupMetricsResponse>) => ({
    columns: ['popup_version', 'popup_displayed_count', 'popup_opened_count', 'open_rate', 'other_versions'], rows: body.metrics,
  }),
});
