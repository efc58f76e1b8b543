import { ClickHouseError, engineStyleError, queryFailed } from '../errors.js';

/**
 * What a request's SQL is, as the engine itself reads it. The text goes to the engine as a bound
 * string (`formatQuery({q:String})`), so nothing in it can run: the engine's own lexer and
 * parser decide where strings, comments and heredocs end, refuse more than one statement
 * (code 62, "Multi-statements are not allowed") and print the one statement back in its
 * canonical form. That form is all the bridge works with afterwards: the check reads its tree,
 * the session runs it, the query log keeps it. No text the client wrote is ever run as such.
 */
export interface Statement {
  /** The engine's canonical text of the one statement: no comments, keywords upper-case. */
  text: string;
  /** The statement's first word as the engine printed it (`SELECT`, `WITH`, `SET`, `(` …). */
  keyword: string;
}

/** Runs one statement with bound parameters and returns its TSVRaw text. */
export type ParseRunner = (sql: string, params: Record<string, unknown>) => Promise<string>;

const PARSE = 'SELECT formatQuery({q:String})';

/**
 * Texts seen recently, by the exact text: BI tools and dashboards repeat the same SQL, and the
 * canonical form of a text never changes for one engine.
 */
const CACHE_ENTRIES = 1000;

export function createStatementParser(run: ParseRunner, cacheEntries = CACHE_ENTRIES) {
  const cache = new Map<string, Statement>();
  return async function parse(sql: string): Promise<Statement> {
    const hit = cache.get(sql);
    if (hit) {
      cache.delete(sql);
      cache.set(sql, hit);
      return hit;
    }
    let text: string;
    try {
      // One row, one column: the value is everything before the row's own line end.
      text = (await run(PARSE, { q: sql })).replace(/\n$/, '');
    } catch (err) {
      throw withoutScope(err);
    }
    const statement = { text, keyword: /^(?:[A-Z]+|\()/.exec(text)?.[0] ?? '' };
    if (cache.size >= cacheEntries) cache.delete(cache.keys().next().value!);
    cache.set(sql, statement);
    return statement;
  };
}

/**
 * The engine reports a syntax error with positions in the text it was given, which is the
 * client's own text; only the scope it appends (`In scope SELECT formatQuery('…')`) names our
 * wrapper, so it is cut.
 */
function withoutScope(err: unknown): unknown {
  if (!(err instanceof ClickHouseError) || err.clickhouseCode <= 0) return err;
  const at = err.message.indexOf(': In scope SELECT formatQuery(');
  if (at < 0) return err;
  const name = /\(([A-Z_]+)\)(?: \(version [^)]*\))?\s*$/.exec(err.message)?.[1];
  const message = `${err.message.slice(0, at).replace(/[\s.]+$/, '')}.${name ? ` (${name})` : ''}`;
  return message.startsWith('Code: ') ? queryFailed(err.clickhouseCode, message, err) : engineStyleError(err.clickhouseCode, name ?? 'SYNTAX_ERROR', message);
}

/** The statement with every literal replaced by `?` (the engine's `normalizeQuery`), for a log that must not keep values. */
export async function withoutLiterals(run: ParseRunner, statement: Statement): Promise<string> {
  return (await run('SELECT normalizeQuery({q:String})', { q: statement.text })).replace(/\n$/, '');
}
