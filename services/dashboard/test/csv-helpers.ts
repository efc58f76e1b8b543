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

/** The statistics whose CSV is a table of records (one row each, a header of column names). */
export const TABULAR = new Set(['timeseries', 'sources', 'topics']);

const text = (v: unknown) => (v === null || v === undefined ? '' : typeof v === 'number' || typeof v === 'boolean' ? JSON.stringify(v) : String(v));

/**
 * The table a tabular statistic's CSV must hold for its JSON body, written from the documented
 * columns (services/dashboard/docs/api.md), not from the implementation.
 */
export function expectedTable(stat: string, json: Record<string, any>): string[][] {
  // With the previous period: a first column `period`, the window's rows, then the previous period's.
  if (json.previous) {
    const [header, ...current] = expectedTable(stat, { ...json, previous: undefined });
    const [, ...previous] = expectedTable(stat, json.previous);
    return [['period', ...header], ...current.map((r) => ['current', ...r]), ...previous.map((r) => ['previous', ...r])];
  }
  const table = (columns: string[], rows: Record<string, unknown>[]) => [columns, ...rows.map((r) => columns.map((c) => text(r[c])))];
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
  throw new Error(`${stat} is not tabular`);
}
