import type { FastifyReply, FastifyRequest } from 'fastify';
import Type from 'typebox';
import type { CsvRow, CsvTable, Statistic } from './statistic.js';

/**
 * `?format=csv` of the statistics routes: every statistic downloads as a table, a header of
 * column names and one row per record. A statistic with a list of records names its table
 * (`csvTable`: one row per day, value, item, version, A/B group...); a statistic of scalars alone
 * is one row, its columns named by their JSON path (`chatted.users_abandoned`). The same object
 * the JSON answer serialises is converted, so every number is the JSON's number.
 */
export const StatsFormat = Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('csv')], {
  default: 'json', description: '`csv`: text/csv (RFC 4180): a header of column names, then one row per record (a statistic of scalars alone: one row); errors stay JSON',
}));

export const CsvBody = Type.String({
  description: 'RFC 4180, CRLF line ends; a header of column names, then one row per record (per day, value, item, popup version, A/B group...; '
    + 'a statistic of scalars alone: one row, columns named by JSON path); with compare=previous a first column `period`; every text cell quoted; a text cell that starts a formula '
    + '(= + - @ tab CR LF NUL, also after a separator , ; tab | quote) is prefixed with \'',
});

export const CSV_CONTENT_TYPE = 'text/csv; charset=utf-8';

/**
 * Text a spreadsheet may run as a formula (OWASP CSV injection, ASVS 1.2.10): a cell starting
 * with = + - @ (also their full-width forms, which some spreadsheets read alike), tab, CR, LF
 * or NUL; or the same characters right after a field separator or quote (`,` `;` tab `|` `"`
 * `'` CR LF, spaces allowed between), since a spreadsheet that splits on that separator starts
 * a new cell there: `x;=1+1` opens as a formula where `;` separates.
 */
const FORMULA = /^[=+\-@\t\r\n\0\uFF1D\uFF0B\uFF0D\uFF20]|[,;\t|"'\r\n] *[=+\-@\uFF1D\uFF0B\uFF0D\uFF20]/;

/**
 * One cell, the only way a CSV cell is written: numbers and booleans are JSON's text, null is
 * empty, and every text cell is quoted (`"` doubled), with a leading `'` when it could start a
 * formula, so no separator a spreadsheet guesses splits it and no formula runs.
 */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'boolean') return JSON.stringify(value);
  let text = String(value);
  if (FORMULA.test(text)) text = `'${text}`;
  return `"${text.replace(/"/g, '""')}"`;
}

/** Every scalar of a JSON value with its dotted path, in the body's own order. */
export function flatten(value: unknown, prefix = '', out: [string, unknown][] = []): [string, unknown][] {
  if (Array.isArray(value)) {
    value.forEach((v, i) => flatten(v, prefix ? `${prefix}.${i}` : String(i), out));
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) flatten(v, prefix ? `${prefix}.${k}` : k, out);
  } else {
    out.push([prefix, value]);
  }
  return out;
}

/** The table of a statistic of scalars alone: one row, its columns named by their JSON path. */
export function scalarRow(body: object): CsvTable {
  const row = Object.fromEntries(flatten(body)) as CsvRow;
  return { columns: Object.keys(row), rows: [row] };
}

/**
 * A statistic's table: a header of column names, then one row per record (`table`; one row of
 * the body's scalars without it). With the previous period (`compare=previous`) a first column
 * `period` says `current` or `previous`, the previous period's rows last.
 */
export function toCsv(body: Record<string, unknown>, table: (b: never) => CsvTable = scalarRow): string {
  const { previous, ...own } = body as { previous?: Record<string, unknown> };
  const current = table(own as never);
  const line = (cells: unknown[]) => `${cells.map(csvCell).join(',')}\r\n`;
  const rows = (t: CsvTable, period?: string) => t.rows.map((r) => line([...(period ? [period] : []), ...current.columns.map((c) => r[c] ?? null)])).join('');
  if (!previous) return line([...current.columns]) + rows(current);
  return line(['period', ...current.columns]) + rows(current, 'current') + rows(table(previous as never), 'previous');
}

const safeName = (s: string) => s.trim().replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 80);

/**
 * preSerialization hook of the statistics plugin: a 200 asked for as CSV leaves as CSV. The
 * serializer is replaced for this reply only, as the response schema of the JSON body would
 * otherwise encode the text as a JSON string.
 */
export async function csvExport(req: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
  const query = req.query as {
    format?: string; chatbot_id?: string; timeframe?: string | number; from?: string; to?: string; compare?: string;
    by?: string; dimension?: string; source?: string; utm_campaign?: string; device?: string;
  };
  if (query?.format !== 'csv' || reply.statusCode !== 200) return payload;
  const statistic = (req.routeOptions.config as { statistic?: Pick<Statistic, 'name' | 'csvName' | 'csvTable'> }).statistic;
  // A range names its days (`2026-01-01_2026-01-31`), a day count its number.
  const frame = query.from !== undefined ? `${query.from}_${query.to}` : query.timeframe ?? '';
  // With the previous period the file holds both windows: its name says so, and differs from the plain one's.
  // A statistic's own parameters (revenue by topic's dimension, the sources' grouping) and a
  // segment filter's value each give a file name of its own.
  const own = statistic?.csvName?.(query) ?? {};
  const segment = (['source', 'utm_campaign', 'device'] as const).map((k) => (query[k] ? `${k}_${query[k]}` : ''));
  const filename = ['chatlytics', statistic?.name ?? 'stats', own.afterName ?? '', query.chatbot_id, frame, own.afterFrame ?? '', ...segment, query.compare === 'previous' ? 'compare-previous' : '']
    .map((p) => safeName(String(p ?? ''))).filter(Boolean).join('-');
  reply.type(CSV_CONTENT_TYPE);
  reply.header('content-disposition', `attachment; filename="${filename}.csv"`);
  reply.serializer((text: unknown) => text as string);
  return toCsv(payload as Record<string, unknown>, statistic?.csvTable);
}
