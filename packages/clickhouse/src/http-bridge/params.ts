import { engineStyleError } from '../errors.js';
import { PLACEHOLDER_PATTERN } from '../placeholder.js';

/**
 * Turns `param_<name>` values, as ClickHouse's HTTP interface receives them (text in the
 * "Escaped" form @clickhouse/client writes), into values for chdb's queryBindAsync.
 *
 * chdb formats each JS value back into that same text before binding: a top-level string
 * is TSV-escaped, anything else is written as a SQL literal. So the job is to find the JS
 * value whose re-encoding means the same thing as the text received:
 * - scalar types: the unescaped string (`\N` → null);
 * - Array/Tuple/Map types: the text itself when it has nothing chdb would re-escape,
 *   else the literal parsed into arrays / tuples / Maps, which chdb writes back quoted.
 * The declared type comes from the query's own `{name:Type}` placeholder.
 */
const PLACEHOLDER = new RegExp(PLACEHOLDER_PATTERN, 'g');
const COMPOSITE = /^(Array|Tuple|Map|Nested)\s*\(/i;
const WRAPPER = /^(Nullable|LowCardinality)\s*\((.*)\)$/is;

export function declaredTypes(sql: string): Map<string, string> {
  const types = new Map<string, string>();
  for (const m of sql.matchAll(PLACEHOLDER)) if (!types.has(m[1])) types.set(m[1], m[2]);
  return types;
}

function isComposite(type: string | undefined): boolean {
  let t = (type ?? '').trim();
  for (let m = WRAPPER.exec(t); m; m = WRAPPER.exec(t)) t = m[2].trim();
  return COMPOSITE.test(t);
}

export function bindValues(sql: string, raw: Record<string, string>): Record<string, unknown> {
  const types = declaredTypes(sql);
  const out: Record<string, unknown> = {};
  for (const [name, text] of Object.entries(raw)) {
    if (text === '\\N') out[name] = null;
    else if (!isComposite(types.get(name))) out[name] = unescape(text);
    // eslint-disable-next-line no-control-regex
    else if (!/[\\\x00-\x1f]/.test(text)) out[name] = text;
    else out[name] = parseLiteral(name, text);
  }
  return out;
}

const ESCAPES: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', '0': '\0', a: '\x07', v: '\v', e: '\x1b' };

/** ClickHouse "Escaped" text → the string it stands for. */
function unescape(text: string): string {
  if (!text.includes('\\')) return text;
  return text.replace(/\\(x[0-9a-fA-F]{2}|[\s\S])/g, (_, c: string) =>
    c.length === 3 ? String.fromCharCode(parseInt(c.slice(1), 16)) : ESCAPES[c] ?? c);
}

/** chdb recognises a tuple by this class name (it is how @clickhouse/client spells tuples). */
class TupleParam {
  constructor(readonly values: unknown[]) {}
}

function parseLiteral(name: string, text: string): unknown {
  let i = 0;
  const fail = (): never => {
    throw engineStyleError(457, 'BAD_QUERY_PARAMETER', `Value ${JSON.stringify(text)} of query parameter ${name} cannot be parsed`);
  };
  const ws = () => { while (i < text.length && /\s/.test(text[i])) i++; };
  const list = (close: string): unknown[] => {
    const items: unknown[] = [];
    ws();
    if (text[i] === close) { i++; return items; }
    for (;;) {
      items.push(value());
      ws();
      if (text[i] === ',') { i++; continue; }
      if (text[i] === close) { i++; return items; }
      return fail();
    }
  };
  const value = (): unknown => {
    ws();
    const c = text[i];
    if (c === '[') { i++; return list(']'); }
    if (c === '(') { i++; return new TupleParam(list(')')); }
    if (c === '{') {
      i++;
      const map = new Map<unknown, unknown>();
      ws();
      if (text[i] === '}') { i++; return map; }
      for (;;) {
        const k = value();
        ws();
        if (text[i++] !== ':') fail();
        map.set(k, value());
        ws();
        if (text[i] === ',') { i++; continue; }
        if (text[i] === '}') { i++; return map; }
        return fail();
      }
    }
    if (c === "'") return quoted();
    const m = /^[^,\])}:\s]+/.exec(text.slice(i));
    if (!m) return fail();
    i += m[0].length;
    const v = bare(m[0]);
    return v === NOT_BARE ? fail() : v;
  };
  const quoted = (): string => {
    let s = '';
    i++;
    while (i < text.length) {
      const c = text[i++];
      if (c === '\\') {
        const m = /^(x[0-9a-fA-F]{2}|[\s\S])/.exec(text.slice(i)) ?? fail();
        i += m[0].length;
        s += unescape(`\\${m[0]}`);
      } else if (c === "'") {
        if (text[i] !== "'") return s;
        s += "'";
        i++;
      } else s += c;
    }
    return fail();
  };
  const result = value();
  ws();
  return i === text.length ? result : fail();
}

const NOT_BARE = Symbol('not a bare literal');

/** An unquoted token; NOT_BARE when it is not one chdb can write back with the same meaning. */
function bare(token: string): unknown {
  if (/^null$/i.test(token)) return null;
  if (/^true$/i.test(token)) return true;
  if (/^false$/i.test(token)) return false;
  // bigint keeps 64-bit integers exact; chdb writes it back as plain digits.
  if (/^[-+]?\d+$/.test(token)) return BigInt(token.replace(/^\+/, ''));
  if (/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(token)) return Number(token);
  return NOT_BARE;
}
