import Type, { type Static } from 'typebox';
import Value from 'typebox/value';
import path from 'node:path';
import { SQL_LIMIT_DEFAULTS, SQL_QUOTA_DEFAULTS, type SqlLimits, type SqlQuota } from './sql-limits.js';
import { localAppUrl } from './app-url.js';

/**
 * Every environment variable of the configuration table in README.md, parsed and validated once at start-up.
 * Values arrive as strings; the schema checks their textual form so that a bad value
 * is reported with the variable's own name before anything is converted.
 */
const Port = Type.String({ pattern: '^[0-9]{1,5}$', description: 'a TCP port (0-65535)' });
const Bool = Type.String({ pattern: '^(true|false|1|0|yes|no)$', description: 'true or false' });
const PositiveNumber = Type.String({ pattern: '^[0-9]+(\\.[0-9]+)?$', description: 'a positive number' });
const PositiveInt = Type.String({ pattern: '^[1-9][0-9]*$', description: 'a positive integer' });
const HttpUrl = Type.String({ pattern: '^https?://[^\\s]+$', description: 'an http(s) URL' });

export const EnvSchema = Type.Object({
  PORT: Type.Optional(Port),
  HOST: Type.Optional(Type.String({ minLength: 1 })),
  INGEST_PORT: Type.Optional(Port),
  DASHBOARD_PORT: Type.Optional(Port),
  CONSUMER_PORT: Type.Optional(Port),
  DATA_DIR: Type.Optional(Type.String({ minLength: 1 })),
  DATABASE_URL: Type.Optional(Type.String({ pattern: '^postgres(ql)?://', description: 'a postgres:// URL' })),
  CLICKHOUSE_URL: Type.Optional(HttpUrl),
  CLICKHOUSE_USER: Type.Optional(Type.String()),
  CLICKHOUSE_PASSWORD: Type.Optional(Type.String()),
  CLICKHOUSE_DATABASE: Type.Optional(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$', description: 'a database identifier' })),
  CLICKHOUSE_EMBEDDED_CONNECTIONS: Type.Optional(Type.String({ pattern: '^([1-9]|1[0-6])$', description: 'an integer from 1 to 16' })),
  CLICKHOUSE_CLUSTER: Type.Optional(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$', description: 'a cluster name of remote_servers' })),
  KAFKA_BROKERS: Type.Optional(Type.String({ pattern: '^[^\\s,]+(,[^\\s,]+)*$', description: 'a comma list of host:port' })),
  KAFKA_TOPIC: Type.Optional(Type.String({ minLength: 1, maxLength: 249 })),
  KAFKA_DLQ_TOPIC: Type.Optional(Type.String({ minLength: 1, maxLength: 249 })),
  KAFKA_GROUP_ID: Type.Optional(Type.String({ minLength: 1 })),
  KAFKA_CREATE_TOPICS: Type.Optional(Bool),
  KAFKA_IDEMPOTENT: Type.Optional(Bool),
  KAFKA_PARTITIONS: Type.Optional(PositiveInt),
  KAFKA_REPLICATION_FACTOR: Type.Optional(PositiveInt),
  KAFKA_RETENTION_HOURS: Type.Optional(PositiveInt),
  CONSUMER_LAG_ALERT_SECONDS: Type.Optional(PositiveInt),
  CONSUMER_FLUSH_MS: Type.Optional(PositiveInt),
  APP_URL: Type.Optional(HttpUrl),
  INGEST_PUBLIC_URL: Type.Optional(HttpUrl),
  RESEND_API_KEY: Type.Optional(Type.String({ minLength: 1 })),
  RESEND_BASE_URL: Type.Optional(HttpUrl),
  MAIL_FROM: Type.Optional(Type.String({ minLength: 3 })),
  RESEND_TEMPLATE_ID: Type.Optional(Type.String({ minLength: 1 })),
  PASSWORD_RESET_EXPIRE_MINUTES: Type.Optional(PositiveNumber),
  DIGEST_WEEKDAY: Type.Optional(Type.String({
    pattern: '^([1-7]|[Mm]on(day)?|[Tt]ue(sday)?|[Ww]ed(nesday)?|[Tt]hu(rsday)?|[Ff]ri(day)?|[Ss]at(urday)?|[Ss]un(day)?)$',
    description: 'a weekday: 1 (Monday) to 7 (Sunday) or its English name',
  })),
  DIGEST_HOUR_UTC: Type.Optional(Type.String({ pattern: '^([0-9]|1[0-9]|2[0-3])$', description: 'an hour from 0 to 23' })),
  PASSWORD_RESET_THROTTLE_SECONDS: Type.Optional(PositiveNumber),
  ALERT_EVALUATE_SECONDS: Type.Optional(PositiveInt),
  ALERT_WEBHOOK_ALLOW_PRIVATE: Type.Optional(Bool),
  TRACK_RATE_LIMIT_PER_MINUTE: Type.Optional(PositiveInt),
  ALLOWED_ORIGINS: Type.Optional(Type.String()),
  TRUST_PROXY: Type.Optional(Type.String()),
  SESSION_SECRET: Type.Optional(Type.String({ minLength: 32, description: 'at least 32 characters' })),
  AUTH_TOKEN_TTL_DAYS: Type.Optional(PositiveInt),
  SQL_API_KEY: Type.Optional(Type.String({ minLength: 16, description: 'at least 16 characters' })),
  METRICS_TOKEN: Type.Optional(Type.String({ minLength: 16, description: 'at least 16 characters' })),
  SQL_MAX_MEMORY_USAGE: Type.Optional(PositiveInt),
  SQL_MAX_EXECUTION_TIME: Type.Optional(PositiveInt),
  SQL_MAX_RESULT_ROWS: Type.Optional(PositiveInt),
  SQL_MAX_RESULT_BYTES: Type.Optional(PositiveInt),
  SQL_MAX_ROWS_TO_READ: Type.Optional(PositiveInt),
  SQL_MAX_CONCURRENT_QUERIES: Type.Optional(PositiveInt),
  SQL_MAX_THREADS: Type.Optional(PositiveInt),
  SQL_QUOTA_QUERIES_PER_HOUR: Type.Optional(PositiveInt),
  SQL_QUOTA_READ_ROWS_PER_HOUR: Type.Optional(PositiveInt),
  SQL_KEY_ADMINS: Type.Optional(Type.String()),
  HTTP_HEADERS_TIMEOUT_MS: Type.Optional(PositiveInt),
  HTTP_REQUEST_TIMEOUT_MS: Type.Optional(PositiveInt),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: Type.Optional(PositiveInt),
  HTTP_IDLE_TIMEOUT_MS: Type.Optional(PositiveInt),
  HTTP_MAX_CONNECTIONS: Type.Optional(PositiveInt),
  LOG_LEVEL: Type.Optional(Type.Union([
    Type.Literal('fatal'), Type.Literal('error'), Type.Literal('warn'), Type.Literal('info'),
    Type.Literal('debug'), Type.Literal('trace'), Type.Literal('silent'),
  ])),
});
export type Env = Static<typeof EnvSchema>;
export const KNOWN_ENV = Object.keys(EnvSchema.properties) as (keyof Env)[];

export interface Config {
  port: number;
  host: string;
  ingestPort: number;
  dashboardPort: number;
  consumerPort: number;
  dataDir: string;
  databaseUrl?: string;
  /** embeddedConnections: chdb connections of the embedded engine (queries in parallel). */
  /**
   * cluster: CLICKHOUSE_CLUSTER, the remote_servers cluster the migrations render for (ON CLUSTER,
   * Replicated*MergeTree, Distributed; clickhouse/deploy/README.md); unset: one node.
   */
  clickhouse: { url?: string; user: string; password: string; database: string; embeddedConnections: number; cluster?: string };
  kafka: {
    brokers?: string[];
    topic: string;
    dlqTopic: string;
    groupId: string;
    /** Create both topics at start-up (existing ones are left alone); off when they are managed elsewhere. */
    createTopics: boolean;
    /** Idempotent producer: a retried send is never written twice. */
    idempotent: boolean;
    /**
     * Partitions of a created topic (default 24): the ceiling on consumer processes sharing the
     * load. Generous up front, because adding partitions later moves keys (user tokens).
     */
    partitions: number;
    /** Replication factor of a created topic (default 1: one local broker; 3 on a production cluster). */
    replicationFactor: number;
    /**
     * retention.ms of a created topic, in hours (default 168 = 7 days): how long a ClickHouse
     * outage may last before unconsumed events expire. An existing topic keeping less is reported.
     */
    retentionHours: number;
  };
  /** The consumer's /ready reports the lag `degraded` once the oldest unstored event is this old (default 300 s). */
  consumerLagAlertSeconds: number;
  /**
   * CONSUMER_FLUSH_MS: how long the consumer gathers fresh rows before an insert (default 250;
   * 1000 with CLICKHOUSE_CLUSTER, where each insert costs a quorum round per table on every shard:
   * clickhouse/deploy/SHARDING.md). Both stay inside the 2 s freshness target.
   */
  consumerFlushMs: number;
  appUrl: string;
  /**
   * APP_URL was set. Unset (a local start), the dashboard also accepts form posts from the
   * loopback address the browser actually used (services/dashboard/docs/api.md, origin rule).
   */
  appUrlExplicit: boolean;
  /** Public base of the ingest service (tracker.js, tracking endpoints) for embed snippets; default appUrl (`npm start` serves both). */
  ingestPublicUrl: string;
  mail: { resendApiKey?: string; resendBaseUrl?: string; from: string; templateId?: string };
  passwordReset: { expireMinutes: number; throttleSeconds: number };
  /** When the weekly digest goes out: ISO weekday (1 = Monday … 7 = Sunday) and hour, UTC. */
  digest: { weekday: number; hourUtc: number };
  /**
   * Chat-health alerts (services/dashboard/README.md): seconds between evaluations, and whether
   * webhooks may target loopback or private addresses (off: a user's URL must not reach the
   * operator's internal network, SSRF).
   */
  alerts: { evaluateSeconds: number; webhookAllowPrivate: boolean };
  track: { rateLimitPerMinute: number; allowedOrigins?: string[] };
  trustProxy?: string[];
  sessionSecret?: string;
  /** Lifetime of a dashboard auth token (`ct_…`) from its issue, in days (default 30). */
  authTokenTtlDays: number;
  /** The bootstrap key of the data team's SQL interface (named keys live in PostgreSQL). */
  sqlApiKey?: string;
  /** Set: /metrics answers any peer presenting it as a Bearer token. Unset: loopback peers only (ops-plugin.ts). */
  metricsToken?: string;
  sql: { limits: SqlLimits; quota: SqlQuota; /** E-mails of dashboard users who may manage SQL keys. */ keyAdmins: string[] };
  /**
   * Limits of every HTTP server, sized for tracking beacons (a few hundred bytes): a client
   * that has not sent its headers within headersTimeoutMs, or its whole request within
   * requestTimeoutMs, or that stays silent idleTimeoutMs, is disconnected. maxConnections
   * unset = derived from the process's file-descriptor limit (see connection-guard.ts).
   */
  http: { headersTimeoutMs: number; requestTimeoutMs: number; keepAliveTimeoutMs: number; idleTimeoutMs: number; maxConnections?: number };
  logLevel: string;
}

export { SQL_LIMIT_DEFAULTS, SQL_QUOTA_DEFAULTS, type SqlLimits, type SqlQuota } from './sql-limits.js';
export { listeningOn, localAppUrl } from './app-url.js';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

const truthy = (v: string | undefined, dflt: boolean) =>
  v === undefined ? dflt : ['true', '1', 'yes'].includes(v);
const num = (v: string | undefined, dflt: number) => (v === undefined ? dflt : Number(v));
const list = (v: string | undefined) =>
  v === undefined ? undefined : v.split(',').map((s) => s.trim()).filter(Boolean);

const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
/** `1`–`7` or a name the schema accepted (`Monday`, `mon`, …) as the ISO weekday number. */
const weekdayNumber = (v: string) => (/^[1-7]$/.test(v) ? Number(v) : WEEKDAYS.indexOf(v.slice(0, 3).toLowerCase()) + 1);

/** Parse the environment; throws ConfigError whose message is one line naming the variable. */
export function loadConfig(rawEnv: Record<string, string | undefined>, cwd = process.cwd()): Config {
  const env: Record<string, string> = {};
  for (const key of KNOWN_ENV) {
    const v = rawEnv[key];
    // An empty variable (FOO=) means "not set", as in most twelve-factor apps.
    if (v !== undefined && v !== '') env[key] = v;
  }
  const first = [...Value.Errors(EnvSchema, env)][0];
  if (first) {
    const name = first.instancePath.replace(/^\//, '') || '(environment)';
    const schema = (EnvSchema.properties as Record<string, { description?: string }>)[name];
    const why = schema?.description ? `must be ${schema.description}` : first.message;
    throw new ConfigError(`Invalid environment variable ${name}: ${why} (got ${JSON.stringify(env[name])})`);
  }
  const e = env as Env;
  // The embedded engine is one node: ON CLUSTER there names a cluster it cannot have.
  if (e.CLICKHOUSE_CLUSTER && !e.CLICKHOUSE_URL) throw new ConfigError('Invalid environment variable CLICKHOUSE_CLUSTER: needs CLICKHOUSE_URL (a ClickHouse server of that cluster)');
  const port = (v: string | undefined, d: number, name: string) => {
    if (v === undefined) return d;
    const n = Number(v);
    if (n > 65535) throw new ConfigError(`Invalid environment variable ${name}: must be a TCP port (0-65535) (got "${v}")`);
    return n;
  };
  const listenPort = port(e.PORT, 3000, 'PORT');
  const host = e.HOST ?? '127.0.0.1';
  // Without APP_URL, links (e-mails, CSVs) point where `npm start` listens (localAppUrl).
  const appUrl = (e.APP_URL ?? localAppUrl(host, listenPort)).replace(/\/+$/, '');
  return {
    port: listenPort,
    host,
    ingestPort: port(e.INGEST_PORT, 3001, 'INGEST_PORT'),
    dashboardPort: port(e.DASHBOARD_PORT, 3002, 'DASHBOARD_PORT'),
    consumerPort: port(e.CONSUMER_PORT, 3003, 'CONSUMER_PORT'),
    dataDir: path.resolve(cwd, e.DATA_DIR ?? './data'),
    databaseUrl: e.DATABASE_URL,
    clickhouse: {
      url: e.CLICKHOUSE_URL,
      user: e.CLICKHOUSE_USER ?? 'default',
      password: e.CLICKHOUSE_PASSWORD ?? '',
      database: e.CLICKHOUSE_DATABASE ?? 'analytics',
      embeddedConnections: num(e.CLICKHOUSE_EMBEDDED_CONNECTIONS, 2),
      cluster: e.CLICKHOUSE_CLUSTER || undefined,
    },
    kafka: {
      brokers: list(e.KAFKA_BROKERS),
      topic: e.KAFKA_TOPIC ?? 'analytics-events',
      dlqTopic: e.KAFKA_DLQ_TOPIC ?? 'analytics-events-dlq',
      groupId: e.KAFKA_GROUP_ID ?? 'analytics-consumer',
      createTopics: truthy(e.KAFKA_CREATE_TOPICS, true),
      idempotent: truthy(e.KAFKA_IDEMPOTENT, true),
      partitions: Number(e.KAFKA_PARTITIONS ?? 24),
      replicationFactor: Number(e.KAFKA_REPLICATION_FACTOR ?? 1),
      retentionHours: Number(e.KAFKA_RETENTION_HOURS ?? 168),
    },
    consumerLagAlertSeconds: Number(e.CONSUMER_LAG_ALERT_SECONDS ?? 300),
    consumerFlushMs: Number(e.CONSUMER_FLUSH_MS ?? (e.CLICKHOUSE_CLUSTER ? 1000 : 250)),
    appUrl,
    appUrlExplicit: e.APP_URL !== undefined,
    ingestPublicUrl: (e.INGEST_PUBLIC_URL ?? appUrl).replace(/\/+$/, ''),
    mail: {
      resendApiKey: e.RESEND_API_KEY,
      resendBaseUrl: e.RESEND_BASE_URL,
      from: e.MAIL_FROM ?? 'Chatlytics <no-reply@chatlytics.local>',
      templateId: e.RESEND_TEMPLATE_ID,
    },
    passwordReset: {
      expireMinutes: Number(e.PASSWORD_RESET_EXPIRE_MINUTES ?? 60),
      throttleSeconds: Number(e.PASSWORD_RESET_THROTTLE_SECONDS ?? 60),
    },
    digest: {
      weekday: weekdayNumber(e.DIGEST_WEEKDAY ?? '1'),
      hourUtc: Number(e.DIGEST_HOUR_UTC ?? 7),
    },
    alerts: {
      evaluateSeconds: Number(e.ALERT_EVALUATE_SECONDS ?? 60),
      webhookAllowPrivate: truthy(e.ALERT_WEBHOOK_ALLOW_PRIVATE, false),
    },
    track: {
      rateLimitPerMinute: Number(e.TRACK_RATE_LIMIT_PER_MINUTE ?? 120),
      allowedOrigins: list(e.ALLOWED_ORIGINS),
    },
    trustProxy: list(e.TRUST_PROXY),
    sessionSecret: e.SESSION_SECRET,
    authTokenTtlDays: Number(e.AUTH_TOKEN_TTL_DAYS ?? 30),
    sqlApiKey: e.SQL_API_KEY,
    metricsToken: e.METRICS_TOKEN,
    sql: {
      limits: {
        maxMemoryUsage: num(e.SQL_MAX_MEMORY_USAGE, SQL_LIMIT_DEFAULTS.maxMemoryUsage),
        maxExecutionTime: num(e.SQL_MAX_EXECUTION_TIME, SQL_LIMIT_DEFAULTS.maxExecutionTime),
        maxResultRows: num(e.SQL_MAX_RESULT_ROWS, SQL_LIMIT_DEFAULTS.maxResultRows),
        maxResultBytes: num(e.SQL_MAX_RESULT_BYTES, SQL_LIMIT_DEFAULTS.maxResultBytes),
        maxRowsToRead: num(e.SQL_MAX_ROWS_TO_READ, SQL_LIMIT_DEFAULTS.maxRowsToRead),
        maxConcurrentQueries: num(e.SQL_MAX_CONCURRENT_QUERIES, SQL_LIMIT_DEFAULTS.maxConcurrentQueries),
        maxThreads: num(e.SQL_MAX_THREADS, SQL_LIMIT_DEFAULTS.maxThreads),
      },
      quota: {
        queriesPerHour: num(e.SQL_QUOTA_QUERIES_PER_HOUR, SQL_QUOTA_DEFAULTS.queriesPerHour),
        readRowsPerHour: num(e.SQL_QUOTA_READ_ROWS_PER_HOUR, SQL_QUOTA_DEFAULTS.readRowsPerHour),
      },
      keyAdmins: (list(e.SQL_KEY_ADMINS) ?? []).map((a) => a.toLowerCase()),
    },
    http: {
      headersTimeoutMs: Number(e.HTTP_HEADERS_TIMEOUT_MS ?? 5000),
      requestTimeoutMs: Number(e.HTTP_REQUEST_TIMEOUT_MS ?? 10_000),
      keepAliveTimeoutMs: Number(e.HTTP_KEEP_ALIVE_TIMEOUT_MS ?? 5000),
      idleTimeoutMs: Number(e.HTTP_IDLE_TIMEOUT_MS ?? 10_000),
      maxConnections: e.HTTP_MAX_CONNECTIONS === undefined ? undefined : Number(e.HTTP_MAX_CONNECTIONS),
    },
    logLevel: e.LOG_LEVEL ?? 'info',
  };
}
