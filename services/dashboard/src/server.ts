/**
 * Production entry point of the dashboard service (`npm run start:dashboard`): the only place
 * that reads the environment. It opens PostgreSQL and ClickHouse, migrates, listens and shuts down;
 * everything else is the dashboardApp plugin.
 */
import { createPostgres } from '@chatlytics/postgres';
import { createClickHouse, runMigrations } from '@chatlytics/clickhouse';
import { createLogger, createMetricsRegistry, opsPlugin, resolveSessionSecret } from '@chatlytics/core';
import { closeOnSignals, createHttpServer, exitOnStartupError, loadConfigOrExit } from '@chatlytics/core/http';
import { dashboardApp, dashboardSecuritySchemes, pagesNotFound } from './app.js';

async function main(): Promise<void> {
    const config = loadConfigOrExit(process.env);
  const log = createLogger(config.logLevel, 'dashboard');
  const registry = createMetricsRegistry();
  const postgres = await createPostgres({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, log });
  const clickhouse = await createClickHouse(config, log);
  // Both migrations are idempotent and lock-protected: several dashboards may start at once.
  await postgres.migrate();
  await runMigrations(clickhouse);

  const app = await createHttpServer({ title: 'Chatlytics dashboard', config, name: 'dashboard', securitySchemes: dashboardSecuritySchemes, notFound: pagesNotFound });
  await app.register(opsPlugin, {
    registry,
    checks: [
      { name: 'postgres', check: () => postgres.ping() },
      { name: 'clickhouse', check: async () => { if (!(await clickhouse.ping())) throw new Error('ClickHouse did not answer'); } },
    ],
  });
  await app.register(dashboardApp, {
    config, postgres, clickhouse, log,
    sessionSecret: resolveSessionSecret(config.sessionSecret, config.dataDir),
  });

  // Order matters: stop taking requests (the mail worker stops in onClose), then close the stores.
  closeOnSignals(async () => {
    await app.close();
    await clickhouse.close();
    await postgres.close();
  }, log);

  await app.listen({ port: config.dashboardPort, host: config.host });
}

main().catch((err) => exitOnStartupError(err));
