/**
 * Production entry point of the dashboard service (`npm run start:dashboard`): the only place
 * that reads the environment. It opens PostgreSQL and ClickHouse and migrates; everything else
 * is the dashboardApp plugin.
 */
import { createPostgres } from '@chatlytics/postgres';
import { createClickHouse, runMigrations } from '@chatlytics/clickhouse';
import { resolveSessionSecret } from '@chatlytics/core';
import { runService } from '@chatlytics/core/http';
import { dashboardApp, dashboardSecuritySchemes, pagesNotFound } from './index.js';

await runService(process.env, {
  name: 'dashboard',
  title: 'Chatlytics dashboard',
  port: (config) => config.dashboardPort,
  async open({ config, log }) {
    const postgres = await createPostgres({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, log });
    const clickhouse = await createClickHouse(config, log);
    // Both migrations are idempotent and lock-protected: several dashboards may start at once.
    await postgres.migrate();
    await runMigrations(clickhouse, { cluster: config.clickhouse.cluster });
    return {
      server: { securitySchemes: dashboardSecuritySchemes, notFound: pagesNotFound },
      checks: [
        { name: 'postgres', check: () => postgres.ping() },
        { name: 'clickhouse', check: async () => { if (!(await clickhouse.ping())) throw new Error('ClickHouse did not answer'); } },
      ],
      async register(app) {
        await app.register(dashboardApp, {
          config, postgres, clickhouse, log,
          sessionSecret: resolveSessionSecret(config.sessionSecret, config.dataDir),
        });
      },
      // The mail worker stopped with the server (onClose); then the stores.
      async close() {
        await clickhouse.close();
        await postgres.close();
      },
    };
  },
});
