/** Reading the statistics' CSV in tests: a strict RFC 4180 parser and the JSON body's values in CSV order. */

/** RFC 4180: quoted fields with "" for a quote, CRLF records. Throws on anything else. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let i = 0;
  while (i < text.length) {
    let cell = '';
    if (text[i] === '"') {
      i++;
      for (;;) {
        if (i >= text.length) throw new Error('unterminated quote');
        if (text[i] === '"') {
          if (text[i + 1] === '"') { cell += '"'; i += 2; continue; }
          i++;
          break;
        }
        cell += text[i++];
      }
    } else {
      while (i < text.length && text[i] !== ',' && text[i] !== '\r') {
        if (text[i] === '"' || text[i] === '\n') throw new Error(`bare ${JSON.stringify(text[i])} at ${i}`);
        cell += text[i++];
      }
    }
    row.push(cell);
    if (text[i] === ',') { i++; continue; }
    if (text.slice(i, i + 2) !== '\r\n') throw new Error(`expected CRLF at ${i}`);
    i += 2;
    rows.push(row);
    row = [];
  }
  return rows;
}

/** The JSON body's scalars as [path, value], in order. */
export function leaves(v: unknown, path: string[] = []): [string, unknown][] {
  if (Array.isArray(v)) return v.flatMap((x, i) => leaves(x, [...path, String(i)]));
  if (v !== null && typeof v === 'object') return Object.entries(v).flatMap(([k, x]) => leaves(x, [...path, k]));
  return [[path.join('.'), v]];
}

/** A cell as the CSV must read it: numbers and booleans as JSON writes them, null empty. */
export const text = (v: unknown) => (v === null || v === undefined ? '' : typeof v === 'number' || typeof v === 'boolean' ? JSON.stringify(v) : String(v));

const RANKED_LISTS = ['most_clicked_products', 'most_talked_about_products', 'most_frequent_intents', 'most_common_complaints', 'missing_information_overview'];

/**
 * The table a statistic's CSV must hold for its JSON body, written from the documented columns
 * (services/dashboard/docs/statistics.md, "CSV"), not from the implementation: a header of column
 * names, then one row per record; a statistic of scalars alone one row, columns named by JSON path.
 */
export function expectedTable(stat: string, json: Record<string, any>, cell: (v: unknown) => string = text): string[][] {
  // With the previous period: a first column `period`, the window's rows, then the previous period's.
  if (json.previous) {
    const [header, ...current] = expectedTable(stat, { ...json, previous: undefined }, cell);
    const [, ...previous] = expectedTable(stat, json.previous, cell);
    return [['period', ...header!], ...current.map((r) => ['current', ...r]), ...previous.map((r) => ['previous', ...r])];
  }
  const table = (columns: string[], rows: Record<string, unknown>[]) => [columns, ...rows.map((r) => columns.map((c) => cell(r[c])))];
  if (stat === 'timeseries') return table(['date', 'visitors', 'conversations', 'purchases', 'revenue'], json.days);
  if (stat === 'sources') {
    const figures = ['visitors', 'chatted', 'purchasers', 'revenue', 'conversion_rate_with_chat', 'conversion_rate_without_chat'];
    const rows = json.rows.map((r: Record<string, unknown>) => ({ ...r, [json.by]: r.value }));
    if (json.other.values) rows.push({ ...json.other, [json.by]: `(other: ${json.other.values} values)` });
    return table([json.by, ...figures], rows);
  }
  if (stat === 'topics') {
    const columns = ['dimension', 'item', 'conversations', 'visitors', 'purchasers', 'revenue', 'orders', 'conversion_rate', 'abandoned_carts', 'abandoned_value', 'links'];
    return table(columns, json.items.map((i: Record<string, unknown>) => ({ ...i, dimension: json.dimension, links: (i.links as string[]).join(' ') })));
  }
  if (stat === 'popup-metrics') return table(['popup_version', 'popup_displayed_count', 'popup_opened_count', 'open_rate', 'other_versions'], json.metrics);
  if (stat === 'purchases' && json.ab_test) {
    const c = json.ab_test.comparison;
    return table(
      ['group', 'visitors', 'orders', 'conversion_rate', 'conversion_rate_ci95_lower', 'conversion_rate_ci95_upper', 'aov', 'arpu', 'p_value', 'sample_ratio_mismatch', 'sample_ratio_p_value'],
      ['control', 'test'].map((group) => {
        const g = json.ab_test[group];
        return { ...g, ...c, group, conversion_rate_ci95_lower: g.conversion_rate_ci95.lower, conversion_rate_ci95_upper: g.conversion_rate_ci95.upper };
      }),
    );
  }
  if (stat === 'conversation-insights') {
    const cost = json.missing_information_cost;
    return table(['list', 'item', 'count', 'visitors', 'revenue', 'conversion_rate', 'abandoned_carts', 'abandoned_value', 'conversations'], [
      ...RANKED_LISTS.flatMap((list) => json[list].map((r: Record<string, any>) => ({ ...r, list, conversations: r.conversations.join(' ') }))),
      ...cost.items.map((i: Record<string, unknown>) => ({ ...i, list: 'missing_information_cost', conversations: '' })),
      { list: 'missing_information_cost', item: '(total)', abandoned_carts: cost.abandoned_carts, abandoned_value: cost.abandoned_value, conversations: '' },
    ]);
  }
  if (stat === 'reconciliation') return table(['date', 'matched', 'tracker_only', 'shop_only'], json.days);
  if (stat === 'event-kinds') return table(['event', 'events'], json.kinds);
  if (stat === 'live-events') return table(['minute', 'events'], json.minutes);
  // Scalars alone: one row, each column named by its JSON path.
  const scalars = leaves(Object.fromEntries(Object.entries(json).filter(([k]) => k !== 'previous')));
  if (scalars.some(([k]) => /(^|\.)[0-9]+(\.|$)/.test(k))) throw new Error(`${stat} has a list: its table is not documented here`);
  return [scalars.map(([k]) => k), scalars.map(([, v]) => cell(v))];
}
