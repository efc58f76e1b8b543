import { Session } from 'chdb';
import { SERVER_LIKE_ARGS, fromChdbError } from '../chdb-engine.js';
import { engineStyleError } from '../errors.js';
import { isIdentifier } from '../identifiers.js';

/**
 * chdb Sessions for the bridge, one per (database, read-only?) pair. `USE` is per
 * Session, so a session per database is how `?database=` works without touching other
 * requests; all of them open the same data directory, which chdb allows in one process.
 */
export interface SessionPoolOptions {
  path: string;
  /** Settings of every read-only session, in `--name=value` form (the data team's limits). */
  readonlyArgs: readonly string[];
  /** Bound on open sessions: each holds a native connection, and database names come from callers. */
  maxSessions?: number;
}

export class SessionPool {
  private readonly sessions = new Map<string, Promise<Session>>();
  private readonly inFlight = new Set<Promise<unknown>>();
  private closed = false;
  private controlSession?: Promise<Session>;
  private parseSession?: Promise<Session>;

  constructor(private readonly opts: SessionPoolOptions) {}

  /** Runs `fn` on the session for this database; engine errors come back as coded errors. */
  async run<T>(database: string, readonly: boolean, fn: (s: Session) => Promise<T>): Promise<T> {
    const session = await this.get(database, readonly);
    return this.track(fn(session));
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

  private get(database: string, readonly: boolean): Promise<Session> {
    if (this.closed) throw engineStyleError(210, 'NETWORK_ERROR', 'The HTTP interface is shutting down');
    if (!isIdentifier(database)) throw engineStyleError(81, 'UNKNOWN_DATABASE', `Database ${JSON.stringify(database)} does not exist`);
    const key = `${database}\0${readonly ? 'ro' : 'rw'}`;
    const hit = this.sessions.get(key);
    if (hit) return hit;
    if (this.sessions.size >= (this.opts.maxSessions ?? 16)) {
      throw engineStyleError(202, 'TOO_MANY_SIMULTANEOUS_QUERIES', 'Too many databases in use through this HTTP interface');
    }
    const opening = this.open(database, readonly);
    this.sessions.set(key, opening);
    // A database that does not exist must not occupy a slot (nor poison later requests).
    opening.catch(() => this.sessions.delete(key));
    return opening;
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
   * A statement that only parses (the sandbox's EXPLAIN AST), on a read-only session of its
   * own with the data team's settings: a query's session runs one statement at a time, so the
   * check of the next query must not wait behind the one running there.
   */
  async parse(sql: string, params: Record<string, unknown>): Promise<string> {
    if (this.closed) throw engineStyleError(210, 'NETWORK_ERROR', 'The HTTP interface is shutting down');
    this.parseSession ??= Promise.resolve(new Session(this.opts.path, { connectionArgs: [...SERVER_LIKE_ARGS, '--readonly=1', ...this.opts.readonlyArgs] }));
    const session = await this.parseSession;
    const run = Object.keys(params).length > 0
      ? session.queryBindAsync(sql, params, { format: 'TSVRaw' })
      : session.queryAsync(sql, { format: 'TSVRaw' });
    return this.track(run.then((r) => r.text()));
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.inFlight]);
    const all = await Promise.allSettled([...this.sessions.values()]);
    for (const r of all) if (r.status === 'fulfilled') r.value.close();
    (await this.controlSession)?.close();
    (await this.parseSession)?.close();
    this.sessions.clear();
  }
}
