/**
 * The one CSV cell writer (src/stats/csv.ts), against OWASP's CSV injection guidance: every
 * text cell quoted, and a formula start neutralised at the start of the text or after any
 * separator a spreadsheet might split on.
 */
import t from 'tap';
import { csvCell, toCsv } from '../src/stats/csv.js';
import { parseCsv } from './csv-helpers.js';

t.test('the issue\'s value opens as text in a ;-splitting spreadsheet', async (t) => {
  const cell = csvCell('x;=1+1;@SUM(1+1)');
  t.equal(cell, `"'x;=1+1;@SUM(1+1)"`);
  t.same(parseCsv(`${cell}\r\n`), [["'x;=1+1;@SUM(1+1)"]]);
});

t.test('every text cell is quoted, quotes doubled; numbers, booleans and null are not text', async (t) => {
  t.equal(csvCell('plain'), '"plain"');
  t.equal(csvCell('a "b"'), '"a ""b"""');
  t.equal(csvCell(''), '""');
  t.equal(csvCell(-2.5), '-2.5', 'a negative number stays a number');
  t.equal(csvCell(0), '0');
  t.equal(csvCell(true), 'true');
  t.equal(csvCell(null), '');
});

t.test('a table: a header of column names, one row per record; scalars alone are one row named by JSON path', async (t) => {
  t.equal(toCsv({ a: 'x', b: { c: 1, d: null } }), '"a","b.c","b.d"\r\n"x",1,\r\n');
  const days = (b: never) => ({ columns: ['date', 'n'], rows: (b as { days: { date: string; n: number }[] }).days });
  t.equal(toCsv({ total: 3, days: [{ date: '2026-01-01', n: 1 }, { date: '2026-01-02', n: 2 }] }, days), '"date","n"\r\n"2026-01-01",1\r\n"2026-01-02",2\r\n');
  t.same(parseCsv(toCsv({ days: [{ date: 'd1', n: 1 }], previous: { days: [{ date: 'd0', n: 0 }] } }, days)), [['period', 'date', 'n'], ['current', 'd1', '1'], ['previous', 'd0', '0']],
    'with the previous period a first column names it, its rows last');
  t.same(parseCsv(toCsv({ n: 1, previous: { n: 2 } })), [['period', 'n'], ['current', '1'], ['previous', '2']], 'one row per period of scalars');
  t.same(parseCsv(toCsv({ list: [{ v: '=1+1' }] }, (b: never) => ({ columns: ['v'], rows: (b as { list: { v: string }[] }).list }))), [['v'], ["'=1+1"]], 'a table\'s cells are neutralised too');
  t.equal(toCsv({ days: [] }, days), '"date","n"\r\n', 'no record: the header alone');
  t.same(parseCsv(toCsv({ days: [{ date: 'd1' }] }, days)), [['date', 'n'], ['d1', '']], 'a column a record lacks is an empty cell');
});

t.test('a formula start at the beginning or after any separator is prefixed with \'', async (t) => {
  const hostile = [
    '=1+1', '+1', '-1+2', '@SUM(1)', '\t=1', '\r=1', '\n=1', '\0=1', '\uFF1D1+1',
    'x,=1', 'x;=1', 'x\t=1', 'x|=1', 'x"=1', "x'=1", 'x\r=1', 'x\n=1', 'x; =1', 'x;+1', 'x;-1', 'x;@SUM(1)', 'x;\uFF20SUM(1)',
    'a,b;c|@cmd', 'ok ok;=HYPERLINK("http://evil.example","x")',
  ];
  for (const v of hostile) {
    const cell = csvCell(v);
    t.equal(cell, `"'${v.replace(/"/g, '""')}"`, JSON.stringify(v));
    const [[parsed]] = parseCsv(`${cell}\r\n`);
    t.equal(parsed, `'${v}`, 'RFC 4180 reads it back with the prefix');
  }
  for (const benign of ['x', 'a-b', 'shoes + socks', 'x; y', 'https://dash.example/app/1', '2026-03-01', 'a=b', 'mail@example.test']) {
    t.equal(csvCell(benign), `"${benign}"`, `${JSON.stringify(benign)} is left as it is`);
  }
});
