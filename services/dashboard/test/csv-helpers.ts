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
