import { skipQuotedOrComment } from './sql-split.js';

/**
 * SQL text as tokens, comments and whitespace kept, so that a rewrite can change a few tokens and
 * join the rest back unchanged (the cluster renderer, cluster-ddl.ts). Only as fine as that needs:
 * words (identifiers, keywords, numbers), quoted text, comments, whitespace, single characters.
 */
export type TokenKind = 'word' | 'string' | 'quoted' | 'comment' | 'space' | 'punct';

export interface Token {
  kind: TokenKind;
  text: string;
}

const WORD = /[A-Za-z0-9_$]/;

export function tokenize(sql: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < sql.length) {
    const c = sql[i];
    const end = skipQuotedOrComment(sql, i);
    if (end > i) {
      out.push({ kind: c === "'" ? 'string' : c === '"' || c === '`' ? 'quoted' : 'comment', text: sql.slice(i, end) });
      i = end;
    } else if (/\s/.test(c)) {
      let j = i + 1;
      while (j < sql.length && /\s/.test(sql[j])) j++;
      out.push({ kind: 'space', text: sql.slice(i, j) });
      i = j;
    } else if (WORD.test(c)) {
      let j = i + 1;
      while (j < sql.length && WORD.test(sql[j])) j++;
      out.push({ kind: 'word', text: sql.slice(i, j) });
      i = j;
    } else {
      out.push({ kind: 'punct', text: c });
      i++;
    }
  }
  return out;
}

export const significant = (t: Token) => t.kind !== 'space' && t.kind !== 'comment';

/** Whether token `t` is the keyword `kw` (case-insensitive). */
export const isWord = (t: Token | undefined, kw: string) => t?.kind === 'word' && t.text.toUpperCase() === kw;

/** The index of the token closing the parenthesis opened at `open`. */
export function closingParen(tokens: Token[], open: number): number {
  let depth = 0;
  for (let i = open; i < tokens.length; i++) {
    if (tokens[i].kind !== 'punct') continue;
    if (tokens[i].text === '(') depth++;
    else if (tokens[i].text === ')' && --depth === 0) return i;
  }
  throw new Error('unbalanced parentheses');
}

/** The index of the next significant token at or after `i` (tokens.length if none). */
export function nextSignificant(tokens: Token[], i: number): number {
  while (i < tokens.length && !significant(tokens[i])) i++;
  return i;
}

/** Indexes of the top-level (depth 0) commas between `from` and `to`. */
export function topLevelCommas(tokens: Token[], from: number, to: number): number[] {
  const out: number[] = [];
  let depth = 0;
  for (let i = from; i < to; i++) {
    const t = tokens[i];
    if (t.kind !== 'punct') continue;
    if (t.text === '(') depth++;
    else if (t.text === ')') depth--;
    else if (t.text === ',' && depth === 0) out.push(i);
  }
  return out;
}

export const join = (tokens: Token[]) => tokens.map((t) => t.text).join('');
