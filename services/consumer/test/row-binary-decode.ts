/**
 * Test-only reader of the consumer's RowBinary rows (src/row-binary.ts), written from
 * ClickHouse's format description rather than from the encoder, so a round trip through it
 * checks the encoder. Returns rows shaped as ClickHouse would return them via JSONEachRow
 * (received_at as 'YYYY-MM-DD HH:MM:SS.mmm', items as objects).
 */
export function decodeEventRows(buf: Buffer, opts: { tail?: boolean } = {}): Record<string, unknown>[] {
  let pos = 0;
  const varint = () => {
    let n = 0;
    let mul = 1;
    for (;;) {
      const b = buf[pos++];
      n += (b & 0x7f) * mul;
      if (b < 0x80) return n;
      mul *= 128;
    }
  };
  const string = () => {
    const n = varint();
    const s = buf.toString('utf8', pos, pos + n);
    pos += n;
    return s;
  };
  const u8 = () => buf[pos++];
  const f64 = () => { const v = buf.readDoubleLE(pos); pos += 8; return v; };
  const u32 = () => { const v = buf.readUInt32LE(pos); pos += 4; return v; };
  const i64 = () => { const v = buf.readBigInt64LE(pos); pos += 8; return Number(v); };
  const uuid = () => {
    const hi = Buffer.from(buf.subarray(pos, pos + 8)).reverse().toString('hex');
    const lo = Buffer.from(buf.subarray(pos + 8, pos + 16)).reverse().toString('hex');
    pos += 16;
    const h = hi + lo;
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  };
  const nullable = <T>(read: () => T) => (u8() === 1 ? null : read());
  const rows: Record<string, unknown>[] = [];
  while (pos < buf.length) {
    const row: Record<string, unknown> = {
      event_id: uuid(),
      event: string(),
      token: string(),
      chatbot_id: string(),
      received_at: new Date(i64()).toISOString().replace('T', ' ').replace('Z', ''),
      ab_test: u8() === 1,
      ab_group: nullable(string),
      popup_version: string(),
      open_way: string(),
      order_num: string(),
      currency: string(),
      total_value: f64(),
      total_value_base: nullable(f64),
      items: Array.from({ length: varint() }, () => ({ item_id: string(), value: f64(), quantity: u32(), currency: string() })),
      url: string(),
      user_agent: string(),
      client_hash: string(),
      data: string(),
      is_bot: u8() === 1,
      source: string(),
      utm_medium: string(),
      utm_campaign: string(),
      device: string(),
      holdout: string(),
    };
    // The insert body's last columns (INSERT_COLUMNS): token_id and insert_key, as ClickHouse returns UInt64 (text).
    if (opts.tail) {
      row.token_id = buf.readBigUInt64LE(pos).toString();
      row.insert_key = buf.readBigUInt64LE(pos + 8).toString();
      pos += 16;
    }
    rows.push(row);
  }
  if (pos !== buf.length) throw new Error('RowBinary: trailing bytes');
  return rows;
}
