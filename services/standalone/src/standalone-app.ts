import type { FastifyInstance } from 'fastify';
import { createMetricsRegistry, opsPlugin, resolveSessionSecret, type Config, type Logger, type Registry } from '@chatlytics/core';
import type { EventBus } from '@chatlytics/bus';
import type { ClickHouseEngine } from '@chatlytics/clickhouse';
import type { Postgres } from '@chatlytics/postgres';
import { createHttpServer } from '@chatlytics/core/http';
import { CLICKHOUSE_HTTP_MAX_URI_BYTES, clickhouseHttp, createQueryLogWriter, sqlKeyAuth } from '@chatlytics/clickhouse';
import { createOrdersCredentialSource, createPolicySource, ingestApp, ordersApp, waitForBus } from '@chatlytics/ingest';
import { createSqlKeyRepository, dashboardApp, dashboardSecuritySchemes, pagesNotFound } from '@chatlytics/dashboard';
import { createConsumer } from '@chatlytics/consumer';
import { openEngines, clickhouseDataPath } from './engines.js';
import { trackerExample } from './tracker-example.js';
import { adminCliRoutes } from './admin/routes.js';
import { generateAdminCredential, localUrl, removeAdminEndpoint, writeAdminEndpoint } from './admin/endpoint-file.js';

/**
 * The consumer's flush policy in `npm start`, where it shares two cores with the tracking route.
 * Every INSERT is a part that ClickHouse's background merges rewrite, and that merge CPU is
 * taken straight from the ingest: under a 10k events/s tracking load the default policy
 * (a flush at ≥ 2,000 rows or 250 ms) made inserts of ~1,400 rows and the merge threads cost
 * 11–14 µs of CPU per event, against 3.5–4 µs with inserts of up to 10,000 rows about once a second
 * (ClickHouse's own advice: about one insert per second per table). Freshness stays inside
 * the 2 s target: an event waits at most 0.75 s in the buffer, which with the statistics cache's
 * 0.5 s and the query keeps it in every statistic within 2 s (npm run bench:freshness). A backlog still flushes
 * at once (the buffer's backlog rule), and the production consumer keeps its defaults.
 */
export const STANDALONE_CONSUMER_OPTIONS = { maxAgeMs: 750, minRowsWhenAllWaiting: 10_000 } as const;

const adminSecurityScheme = {
  adminCredential: { type: 'http', scheme: 'bearer', description: 'Local admin credential of this start (DATA_DIR/admin-endpoint.json)' },
} as const;

export interface Standalone {
  app: FastifyInstance;
  /** For benchmarks and tests that count what reached ClickHouse and what was accepted. */
  clickhouse: ClickHouseEngine;
  /** For tests that seed accounts or run a second dashboard component on the same database. */
  postgres: Postgres;
  /** For tests that run CLI commands as the admin endpoint does (the server's stores). */
  bus: EventBus;
  registry: Registry;
  /** This start's admin credential (also in DATA_DIR/admin-endpoint.json once listening). */
  adminCredential: string;
  close(): Promise<void>;
}

/**
 * `npm start`: ingest, consumer and dashboard in one process on the engines the config selects
 * (embedded by default). The same plugins the three production services register.
 */
export async function buildStandalone(config: Config, log: Logger, opts: { pluginTimeout?: number; clock?: () => Date } = {}): Promise<Standalone> {
  const registry = createMetricsRegistry();
  const engines = await openEngines(config, log, registry);
  // As the ingest service: no tracking request waits on topic creation or a producer id.
  await waitForBus(engines.bus, log);
  const consumer = createConsumer({ config, bus: engines.bus, clickhouse: engines.clickhouse, log, registry, options: STANDALONE_CONSUMER_OPTIONS });
  const app = await createHttpServer({
    title: 'Chatlytics', config, name: 'chatlytics', securitySchemes: { ...dashboardSecuritySchemes, ...adminSecurityScheme }, notFound: pagesNotFound, pluginTimeout: opts.pluginTimeout,
    // The /clickhouse interface (below) takes URLs as long as ClickHouse does.
    ...(engines.clickhouse.kind === 'embedded' ? { maxHeaderSize: CLICKHOUSE_HTTP_MAX_URI_BYTES } : {}),
  });
  // One persistent secret signs sessions and keys the client-IP hashes (comparable across restarts).
  const secret = resolveSessionSecret(config.sessionSecret, config.dataDir);
  const adminCredential = generateAdminCredential();
  try {
    await app.register(opsPlugin, {
      registry,
      metricsToken: config.metricsToken,
      checks: [
        { name: 'postgres', check: () => engines.postgres.ping() },
        { name: 'clickhouse', check: async () => { if (!(await engines.clickhouse.ping())) throw new Error('ClickHouse did not answer'); } },
        { name: 'bus', check: async () => { await engines.bus.ping(); return { consumer_lag: await engines.bus.lag() }; } },
      ],
    });
    await app.register(ingestApp, {
      config, bus: engines.bus, log, registry, clientHashSecret: secret,
      policies: createPolicySource({ db: engines.postgres.db, log, registry }),
    });
    await app.register(ordersApp, { bus: engines.bus, credentials: createOrdersCredentialSource({ db: engines.postgres.db }) });
    await app.register(dashboardApp, {
      config, postgres: engines.postgres, clickhouse: engines.clickhouse, log,
      sessionSecret: secret, clock: opts.clock,
    });
    await app.register(trackerExample);
    await app.register(adminCliRoutes, { prefix: '/api/admin', config, log, stores: engines, credential: adminCredential });
    // The CLI finds the server through this file only while it listens (src/admin/endpoint-file.ts).
    app.addHook('onListen', async () => {
      const address = app.server.address();
      if (address && typeof address === 'object') writeAdminEndpoint(config.dataDir, { url: localUrl(address), credential: adminCredential, pid: process.pid });
    });
    app.addHook('onClose', async () => removeAdminEndpoint(config.dataDir, adminCredential));
    // The data team's SQL endpoint exists when ClickHouse is the embedded engine; against a
    // server they use the server's own read-only user directly. Every request needs a key:
    // SQL_API_KEY (bootstrap) or a named key from PostgreSQL.
    if (engines.clickhouse.kind === 'embedded') {
      const queryLog = createQueryLogWriter(engines.clickhouse, log);
      const sqlKeys = createSqlKeyRepository({ db: engines.postgres.db });
      app.addHook('onClose', async () => queryLog.close());
      await app.register(clickhouseHttp, {
        prefix: '/clickhouse',
        sessionPath: clickhouseDataPath(config),
        hiddenPaths: [clickhouseDataPath(config), config.dataDir],
        database: config.clickhouse.database,
        readonly: true,
        authenticate: sqlKeyAuth({ bootstrapKey: config.sqlApiKey, lookup: (key) => sqlKeys.resolve(key, config.sql.quota) }),
        limits: config.sql.limits,
        quota: config.sql.quota,
        onQueryLogged: (entry) => queryLog.write(entry),
      });
    }
    await consumer.start();
  } catch (err) {
    await app.close().catch(() => undefined);
    await engines.close();
    throw err;
  }

  let closed: Promise<void> | undefined;
  return {
    app,
    clickhouse: engines.clickhouse,
    postgres: engines.postgres,
    bus: engines.bus,
    registry,
    adminCredential,
    close() {
      // Order matters: stop accepting requests (the ingest plugin drains its publisher in
      // onClose), then let the consumer finish and commit its batch, then close the engines.
      closed ??= (async () => {
        await app.close();
        await consumer.stop();
        await engines.close();
      })();
      return closed;
    },
  };
}
