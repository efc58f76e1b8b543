import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ClickHouseEngine } from '@chatlytics/clickhouse';
import type { Config } from '@chatlytics/core';
import type { Database } from '@chatlytics/postgres';
import type { Postgres } from '@chatlytics/postgres';
import type { FastifyBaseLogger } from 'fastify';
import type { DashboardDeps } from '../deps.js';
import { DEFAULT_RETENTION_INTERVAL_MS, retentionLoopPlugin } from './retention.js';
import { createJobQueue } from '../jobs/queue.js';
import type { JobKind } from '../jobs/worker.js';
import { createErasureService, createTokenHasher, ERASURE_JOB, erasureJobKind } from './erasure.js';
import { createPrivacyRepository } from './repository.js';
import { privacyRoutes } from './routes.js';
import { createVisitorStore } from './visitor-store.js';

export interface PrivacyTuning {
  /** The erasure's wait between listing a token and deleting its ClickHouse rows (ERASED_TOKENS_SETTLE_MS). */
  erasureSettleMs?: number;
  /** Between retention runs (DEFAULT_RETENTION_INTERVAL_MS); 0: never by itself (tests call runRetention). */
  retentionIntervalMs?: number;
}

/** The personal-data feature (README.md, "Personal data"): its routes and its job kind. */
export function createPrivacyFeature(o: PrivacyTuning & { db: Database; clickhouse: ClickHouseEngine; config: Config; secret: string; clock: () => Date }) {
  const retention = {
    db: o.db, clickhouse: o.clickhouse, cluster: o.config.clickhouse.cluster, clock: o.clock,
    intervalMs: o.retentionIntervalMs ?? DEFAULT_RETENTION_INTERVAL_MS,
  };
  const privacy = createPrivacyRepository({ db: o.db });
  const store = createVisitorStore(o.clickhouse, { cluster: o.config.clickhouse.cluster });
  const erasure = createErasureService({
    privacy, store, jobs: createJobQueue({ db: o.db }), hashToken: createTokenHasher(o.secret), clock: o.clock, settleMs: o.erasureSettleMs,
  });
  const routes: FastifyPluginAsyncTypebox<{ deps: DashboardDeps }> = async (app, { deps }) => {
    await app.register(privacyRoutes, { deps, privacy, store, erasure });
  };
  /** The retention loop (retention.ts), registered once per app. */
  const loop = async (app: Parameters<typeof retentionLoopPlugin>[0], x: { postgres: Pick<Postgres, 'exclusive'>; log: FastifyBaseLogger }) =>
    app.register(retentionLoopPlugin, { ...retention, ...x });
  const jobKinds: Record<string, JobKind> = { [ERASURE_JOB]: erasureJobKind(erasure) };
  return { erasure, routes, jobKinds, loop };
}

export { createErasureService, createTokenHasher, ERASURE_JOB } from './erasure.js';
export { runRetention, retentionCutoff, RETENTION_LOCK_KEY } from './retention.js';
export { RETENTION_DAYS } from './retention-days.js';
