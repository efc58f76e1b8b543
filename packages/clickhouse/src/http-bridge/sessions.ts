import { Session } from 'chdb';
import { SERVER_LIKE_ARGS, fromChdbError } from '../chdb-engine.js';
import { engineStyleError } from '../errors.js';
import { isIdentifier } from '../identifiers.js';

/**
 * chdb Sessions for the bridge, one per (owner, database, read-only?): `USE` is per Session, so
 * a session per database is how `?database=` works without touching other requests, and a
 * session per owner (a data-team key) is how one key's queries never share a session's state
 * (its settings, its pending output) with another's. All of them open the same data
 * directory, which chdb allows in one process; a session costs well under a millisecond to
 * open, so idle ones beyond the bound are closed, least recently used first.
 */
export interface SessionPoolOptions {
  path: string;
  /** Settings of every read-only session, in `--name=value` form (the data team's limits). */
  readonlyArgs: readonly string[];
  /** Bound on open sessions: each holds a native connection, and database names come from callers. */
  maxSessions?: number;
}

interface Entry { session: Promise<Session>; busy: number }

export class SessionPool {
  /** In least-recently-used order: a use moves an entry to the end. */
  private readonly sessions = new Map<string, Entry>();
  private readonly inFlight = new Set<Promise<unknown>>();
  private closed = false;
  private controlSession?: Promise<Session>;
  private parseSession?: Promise<Session>;

  constructor(private readonly opts: SessionPoolOptions) {}

  /**
   * Runs `fn` on the session of this owner and database; engine errors come back as coded
   * errors. `owner` is who the statement runs for ('' for the service's own use).
   */
  async run<T>(owner: string, database: string, readonly: boolean, fn: (s: Session) => Promise<T>): Promise<T> {
    const entry = this.get(owner, database, readonly);
    entry.busy++;
    try {
      return await this.track(entry.session.then(fn));
    } finally {
      entry.busy--;
    }
  }

  private async track<T>(p: Promise<T>): Promise<T> {
    this.inFlight.add(p);
    try {
      return await p;
    } catch (err) {
      throw fromChdbError(err);
    } finally {
      this.inFlight.delete(p);
    }
  }

  private get(owner: string, database: string, readonly: boolean): Entry {
    if (this.closed) throw engineStyleError(210, 'NETWORK_ERROR', 'The HTTP interface is shutting down');
    if (!isIdentifier(database)) throw engineStyleError(81, 'UNKNOWN_DATABASE', `Database ${JSON.stringify(database)} does not exist`);
    const key = JSON.stringify([owner, database, readonly]);
    const hit = this.sessions.get(key);
    if (hit) {
      this.sessions.delete(key);
      this.sessions.set(key, hit);
      return hit;
    }
    if (this.sessions.size >= (this.opts.maxSessions ?? 32)) this.closeIdle();
    const entry: Entry = { session: this.open(database, readonly), busy: 0 };
    this.sessions.set(key, entry);
    // A database that does not exist must not occupy a slot (nor poison later requests).
    entry.session.catch(() => { if (this.sessions.get(key) === entry) this.sessions.delete(key); });
    return entry;
  }

  /** Closes the least recently used session nobody is using, or refuses when all are in use. */
  private closeIdle(): void {
    for (const [key, entry] of this.sessions) {
      if (entry.busy > 0) continue;
      this.sessions.delete(key);
      entry.session.then((s) => s.close(), () => undefined);
      return;
    }
    throw engineStyleError(202, 'TOO_MANY_SIMULTANEOUS_QUERIES', 'Too many sessions in use through this HTTP interface');
  }

  private async open(database: string, readonly: boolean): Promise<Session> {
    const args: string[] = [...SERVER_LIKE_ARGS];
    if (readonly) args.push('--readonly=1', ...this.opts.readonlyArgs);
    const session = new Session(this.opts.path, { connectionArgs: args });
    try {
      await session.queryAsync(`USE ${database}`);
      return session;
    } catch (err) {
      session.close();
      throw fromChdbError(err);
    }
  }

  /**
   * A statement about the engine itself (system.processes, KILL QUERY) on a session of its
   * own, outside the limits and the per-database sessions. Read-only: ClickHouse lets
   * readonly=1 kill queries.
   */
  async control(sql: string): Promise<string> {
    if (this.closed) return '';
    this.controlSession ??= Promise.resolve(new Session(this.opts.path, { connectionArgs: [...SERVER_LIKE_ARGS, '--readonly=1', '--max_execution_time=5'] }));
    const session = await this.controlSession;
    return this.track(session.queryAsync(sql, { format: 'TabSeparated' }).then((r) => r.text()));
  }

  /**
   * A statement that only parses (statement.ts's formatQuery of the text as a bound string, the
   * sandbox's EXPLAIN AST of the engine's canonical text), on a read-only session of its
   * own with the data team's settings: a query's session runs one statement at a time, so the
   * check of the next query must not wait behind the one running there.
   */
  async parse(sql: string, params: Record<string, unknown>, format = 'TSVRaw'): Promise<string> {
    if (this.closed) throw engineStyleError(210, 'NETWORK_ERROR', 'The HTTP interface is shutting down');
    this.parseSession ??= Promise.resolve(new Session(this.opts.path, { connectionArgs: [...SERVER_LIKE_ARGS, '--readonly=1', ...this.opts.readonlyArgs] }));
    const session = await this.parseSession;
    const run = Object.keys(params).length > 0
      ? session.queryBindAsync(sql, params, { format })
      : session.queryAsync(sql, { format });
    return this.track(run.then((r) => r.text()));
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.inFlight]);
    const all = await Promise.allSettled([...this.sessions.values()].map((e) => e.session));
    for (const r of all) if (r.status === 'fulfilled') r.value.close();
    (await this.controlSession)?.close();
    (await this.parseSession)?.close();
    this.sessions.clear();
  }
}
