import type { FastifyInstance } from 'fastify';
import { createMetricsRegistry, opsPlugin, resolveSessionSecret, type Config, type Logger } from '@chatlytics/core';
import { createHttpServer } from '@chatlytics/core/http';
import { clickhouseHttp, sqlApiKeyAuth } from '@chatlytics/clickhouse';
import { ingestApp } from '@chatlytics/ingest';
import { dashboardApp, dashboardSecuritySchemes, pagesNotFound } from '@chatlytics/dashboard';
import { createConsumer } from '@chatlytics/consumer';
import { openEngines, clickhouseDataPath } from './engines.js';

export interface Standalone {
  app: FastifyInstance;
  close(): Promise<void>;
}

/**
 * `npm start`: ingest, consumer and dashboard in one process on the engines the config selects
 * (embedded by default). The same plugins the three production services register.
 */
export async function buildStandalone(config: Config, log: Logger, opts: { pluginTimeout?: number } = {}): Promise<Standalone> {
  const registry = createMetricsRegistry();
  const engines = await openEngines(config, log, registry);
  const consumer = createConsumer({ config, bus: engines.bus, clickhouse: engines.clickhouse, log, registry });
  const app = await createHttpServer({ title: 'Chatlytics', config, name: 'chatlytics', securitySchemes: dashboardSecuritySchemes, notFound: pagesNotFound, pluginTimeout: opts.pluginTimeout });
  // One persistent secret signs sessions and keys the client-IP hashes (comparable across restarts).
  const secret = resolveSessionSecret(config.sessionSecret, config.dataDir);
  try {
    await app.register(opsPlugin, {
      registry,
      checks: [
        { name: 'postgres', check: () => engines.postgres.ping() },
        { name: 'clickhouse', check: async () => { if (!(await engines.clickhouse.ping())) throw new Error('ClickHouse did not answer'); } },
        { name: 'bus', check: async () => { await engines.bus.ping(); return { consumer_lag: await engines.bus.lag() }; } },
      ],
    });
    await app.register(ingestApp, { config, bus: engines.bus, log, registry, clientHashSecret: secret });
    await app.register(dashboardApp, {
      config, postgres: engines.postgres, clickhouse: engines.clickhouse, log,
      sessionSecret: secret,
    });
    // The data team's SQL endpoint exists only when a key is configured and ClickHouse is the
    // embedded engine; against a server they use the server's own read-only user directly.
    if (config.sqlApiKey && engines.clickhouse.kind === 'embedded') {
      await app.register(clickhouseHttp, {
        prefix: '/clickhouse',
        sessionPath: clickhouseDataPath(config),
        database: config.clickhouse.database,
        readonly: true,
        authenticate: sqlApiKeyAuth(config.sqlApiKey),
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
