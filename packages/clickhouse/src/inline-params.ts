import type { QueryParams } from './types.js';
import { isIdentifier } from './identifiers.js';
import { PLACEHOLDER_PATTERN } from './placeholder.js';
import { skipQuotedOrComment } from './sql-split.js';

/**
 * The embedded engine's parameter binding, done the way ClickHouse itself substitutes a
 * `{name:Type}` placeholder: `_CAST('<the value's text>', 'Type')`, the text parsed by the type.
 * Why: chdb runs bound queries one at a time per process (its set/reset of parameter state is
 * not isolated between connections), while plain queries on separate connections run in
 * parallel. With the parameters in the text, the statistics of one page use both cores.
 * Safe by construction: every value becomes one single-quoted string literal with `\` and `'`
 * escaped (or NULL); the SQL around it is ours. Placeholders inside string literals, quoted
 * identifiers and comments are left alone, as ClickHouse's lexer leaves them.
 * Returns undefined when the text form cannot say the same as binding (a missing parameter, a
 * value of an unsupported kind, a text larger than `maxBytes`): the caller binds instead, and
 * the engine reports errors exactly as before.
 */
export function inlineParams(sql: string, params: QueryParams, maxBytes = INLINE_MAX_BYTES): string | undefined {
  let out = '';
  let copied = 0;
  let i = 0;
  while (i < sql.length) {
    const skipTo = skipQuotedOrComment(sql, i);
    if (skipTo > i) {
      i = skipTo;
      continue;
    }
    if (sql[i] === '{') {
      PLACEHOLDER.lastIndex = i;
      const m = PLACEHOLDER.exec(sql);
      if (m) {
        const literal = render(params, m[1], m[2]);
        if (literal === undefined) return undefined;
        out += sql.slice(copied, i) + literal;
        i += m[0].length;
        copied = i;
        if (out.length > maxBytes) return undefined;
        continue;
      }
    }
    i++;
  }
  out += sql.slice(copied);
  return Buffer.byteLength(out) > maxBytes ? undefined : out;
}

/** Below ClickHouse's max_query_size (256 KiB): a batch's id list binds instead of growing the text. */
export const INLINE_MAX_BYTES = 200_000;

const PLACEHOLDER = new RegExp(PLACEHOLDER_PATTERN, 'y');

function render(params: QueryParams, name: string, type: string): string | undefined {
  if (!Object.hasOwn(params, name)) return undefined;
  const value = params[name];
  if (type === 'Identifier') {
    // Substituted as a name, as the server does: only plain (optionally db.-qualified) names.
    if (typeof value !== 'string') return undefined;
    const parts = value.split('.');
    return parts.length <= 2 && parts.every(isIdentifier) ? parts.map((p) => `\`${p}\``).join('.') : undefined;
  }
  if (value === null) return `_CAST(NULL, ${quote(type)})`;
  const text = paramText(value, true);
  return text === undefined ? undefined : `_CAST(${quote(text)}, ${quote(type)})`;
}

/**
 * The value's text as a bound parameter carries it: a top-level string as is, numbers and
 * booleans as their digits and words, arrays in ClickHouse's quoted text form (['a', NULL]).
 */
function paramText(value: unknown, top: boolean): string | undefined {
  switch (typeof value) {
    case 'string':
      return top ? value : quote(value);
    case 'number':
      return Number.isFinite(value) && (!Number.isInteger(value) || Number.isSafeInteger(value)) ? String(value) : undefined;
    case 'bigint':
      return value.toString();
    case 'boolean':
      return value ? 'true' : 'false';
    default:
      if (value === null && !top) return 'NULL';
      if (Array.isArray(value)) {
        const items = value.map((v) => paramText(v, false));
        return items.some((v) => v === undefined) ? undefined : `[${items.join(',')}]`;
      }
      return undefined;
  }
}

const ESCAPES: Record<string, string> = { '\\': '\\\\', "'": "\\'", '\0': '\\0', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** A single-quoted ClickHouse string literal. */
export function quote(s: string): string {
  return `'${s.replace(/[\\'\0\b\f\n\r\t]/g, (ch) => ESCAPES[ch])}'`;
}
