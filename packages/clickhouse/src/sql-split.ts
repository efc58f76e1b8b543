/**
 * Splits SQL text into statements at top-level semicolons. A naive split(';') would cut
 * inside string literals ('a;b'), quoted identifiers and comments, so this walks the text
 * once, skipping over those. For the project's own SQL only (migration files, the rebuild, the
 * cluster renderer, placeholders in our queries): it knows fewer spellings than ClickHouse's
 * lexer (no heredocs, no nested comments, no Unicode quotes), so it must never judge a text
 * someone else wrote. The data team's SQL is judged by the engine itself
 * (http-bridge/statement.ts); sql.test.ts checks the bridge does not import this file.
 */
export function splitStatements(sql: string): string[] {
  const out: string[] = [];
  let start = 0;
  let i = 0;
  const n = sql.length;
  while (i < n) {
    const end = skipQuotedOrComment(sql, i);
    if (end > i) {
      i = end;
    } else if (sql[i] === ';') {
      push(out, sql.slice(start, i));
      start = ++i;
    } else {
      i++;
    }
  }
  push(out, sql.slice(start));
  return out;
}

/**
 * The index just past the string literal, quoted identifier or comment that starts at i, or i
 * itself when none does: what ClickHouse's lexer skips as a whole (`--`, `# ` and `#!` line
 * comments, block comments).
 */
export function skipQuotedOrComment(sql: string, i: number): number {
  const c = sql[i];
  if (c === "'" || c === '"' || c === '`') return skipQuoted(sql, i, c);
  if ((c === '-' && sql[i + 1] === '-') || (c === '#' && (sql[i + 1] === ' ' || sql[i + 1] === '!'))) return skipLine(sql, i);
  if (c === '/' && sql[i + 1] === '*') {
    const end = sql.indexOf('*/', i + 2);
    return end < 0 ? sql.length : end + 2;
  }
  return i;
}

/** Index just past the closing quote; a backslash escapes the next character, and a doubled quote is a literal quote. */
function skipQuoted(sql: string, i: number, q: string): number {
  let j = i + 1;
  while (j < sql.length) {
    if (sql[j] === '\\') { j += 2; continue; }
    if (sql[j] === q) {
      if (sql[j + 1] === q) { j += 2; continue; }
      return j + 1;
    }
    j++;
  }
  return sql.length;
}

function skipLine(sql: string, i: number): number {
  const end = sql.indexOf('\n', i);
  return end < 0 ? sql.length : end + 1;
}

function push(out: string[], stmt: string) {
  const trimmed = stmt.trim();
  if (stripComments(trimmed).trim() !== '') out.push(trimmed);
}

/** The statement without comments (strings kept): whether anything but comments is left. */
function stripComments(sql: string): string {
  let out = '';
  let i = 0;
  while (i < sql.length) {
    const c = sql[i];
    if (c === "'" || c === '"' || c === '`') {
      const end = skipQuoted(sql, i, c);
      out += sql.slice(i, end);
      i = end;
    } else if ((c === '-' && sql[i + 1] === '-') || (c === '#' && (sql[i + 1] === ' ' || sql[i + 1] === '!'))) {
      i = skipLine(sql, i);
      out += '\n';
    } else if (c === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      i = end < 0 ? sql.length : end + 2;
      out += ' ';
    } else {
      out += c;
      i++;
    }
  }
  return out;
}
