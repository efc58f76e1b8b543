import fp from 'fastify-plugin';
import type { FastifyBaseLogger } from 'fastify';
import type { ClickHouseEngine } from '@chatlytics/clickhouse';
import type { Config } from '@chatlytics/core';
import type { Postgres } from '@chatlytics/postgres';
import { createAlertEvaluator } from './evaluator.js';
import { createAlertFigures } from './figures.js';
import type { AlertRepository } from './repository.js';
import { createWebhookDeliveryRepository, createWebhookWorker, type WebhookWorkerOptions } from './webhook-queue.js';

/** Knobs of the alert loops; production uses the config, tests shorten the waits. */
export interface AlertTuning {
  /** Between evaluation runs (default config.alerts.evaluateSeconds); 0: the evaluator never runs. */
  evaluateIntervalMs?: number;
  webhook?: Pick<WebhookWorkerOptions, 'pollIntervalMs' | 'backoffBaseMs' | 'maxAttempts' | 'leaseMs' | 'timeoutMs'>;
}

export interface AlertLoopsOptions extends AlertTuning {
  config: Config;
  alerts: AlertRepository;
  clickhouse: ClickHouseEngine;
  postgres: Postgres;
  log: FastifyBaseLogger;
  clock: () => Date;
}

/** The evaluator and the webhook worker as part of the dashboard app: started when the server is ready, stopped (after their work in hand) on close. */
export const alertLoopsPlugin = fp<AlertLoopsOptions>(async (app, opts) => {
  const log = opts.log.child({ component: 'alerts' });
  const evaluator = createAlertEvaluator({
    alerts: opts.alerts, figures: createAlertFigures(opts.clickhouse), postgres: opts.postgres, log, clock: opts.clock,
    appUrl: opts.config.appUrl, intervalMs: opts.evaluateIntervalMs ?? opts.config.alerts.evaluateSeconds * 1000,
  });
  const webhooks = createWebhookWorker({
    ...opts.webhook, deliveries: createWebhookDeliveryRepository({ db: opts.postgres.db }), log, allowPrivate: opts.config.alerts.webhookAllowPrivate,
  });
  app.addHook('onReady', async () => {
    evaluator.start();
    webhooks.start();
  });
  app.addHook('onClose', async () => {
    await evaluator.stop();
    await webhooks.stop();
  });
});
