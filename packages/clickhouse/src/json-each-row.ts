/** JSONEachRow in both directions, shared by the engines and the bridge. */

export function toJsonEachRow(rows: readonly object[]): Buffer {
  // One JSON object per line; the trailing newline ends the last row for every parser.
  return Buffer.from(rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
}

export function parseJsonEachRow<T>(text: string): T[] {
  const rows: T[] = [];
  for (const line of text.split('\n')) {
    if (line !== '') rows.push(JSON.parse(line) as T);
  }
  return rows;
}
