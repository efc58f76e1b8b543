import fp from 'fastify-plugin';
import type { FastifyBaseLogger } from 'fastify';
import type { ClickHouseEngine } from '@chatlytics/clickhouse';
import type { Config } from '@chatlytics/core';
import type { Postgres } from '@chatlytics/postgres';
import { createAlertEvaluator } from './evaluator.js';
import { createAlertFigures } from './figures.js';
import type { AlertRepository } from './repository.js';
import type { WebhookKindOptions } from './webhook-job.js';

/** Knobs of the alerts; production uses the config, tests shorten the waits. */
export interface AlertTuning {
  /** Between evaluation runs (default config.alerts.evaluateSeconds); 0: the evaluator never runs. */
  evaluateIntervalMs?: number;
  /** The webhook kind's retries and timeout (the job worker delivers them). */
  webhook?: Pick<WebhookKindOptions, 'backoffBaseMs' | 'maxAttempts' | 'timeoutMs'>;
}

export interface AlertLoopsOptions extends AlertTuning {
  config: Config;
  alerts: AlertRepository;
  clickhouse: ClickHouseEngine;
  postgres: Postgres;
  log: FastifyBaseLogger;
  clock: () => Date;
}

/** The evaluator as part of the dashboard app: started when the server is ready, stopped (after its run) on close. */
export const alertLoopsPlugin = fp<AlertLoopsOptions>(async (app, opts) => {
  const evaluator = createAlertEvaluator({
    alerts: opts.alerts, figures: createAlertFigures(opts.clickhouse), postgres: opts.postgres, log: opts.log.child({ component: 'alerts' }), clock: opts.clock,
    appUrl: opts.config.appUrl, intervalMs: opts.evaluateIntervalMs ?? opts.config.alerts.evaluateSeconds * 1000,
  });
  app.addHook('onReady', async () => evaluator.start());
  app.addHook('onClose', async () => evaluator.stop());
});
