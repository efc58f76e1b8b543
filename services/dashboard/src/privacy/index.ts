import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ClickHouseEngine } from '@chatlytics/clickhouse';
import type { Config } from '@chatlytics/core';
import type { Database } from '@chatlytics/postgres';
import type { DashboardDeps } from '../deps.js';
import { createJobQueue } from '../jobs/queue.js';
import type { JobKind } from '../jobs/worker.js';
import { createErasureService, createTokenHasher, ERASURE_JOB, erasureJobKind } from './erasure.js';
import { createPrivacyRepository } from './repository.js';
import { privacyRoutes } from './routes.js';
import { createVisitorStore } from './visitor-store.js';

export interface PrivacyTuning {
  /** The erasure's wait between listing a token and deleting its ClickHouse rows (ERASED_TOKENS_SETTLE_MS). */
  erasureSettleMs?: number;
}

/** The personal-data feature (README.md, "Personal data"): its routes and its job kind. */
export function createPrivacyFeature(o: PrivacyTuning & { db: Database; clickhouse: ClickHouseEngine; config: Config; secret: string; clock: () => Date }) {
  const privacy = createPrivacyRepository({ db: o.db });
  const store = createVisitorStore(o.clickhouse, { cluster: o.config.clickhouse.cluster });
  const erasure = createErasureService({
    privacy, store, jobs: createJobQueue({ db: o.db }), hashToken: createTokenHasher(o.secret), clock: o.clock, settleMs: o.erasureSettleMs,
  });
  const routes: FastifyPluginAsyncTypebox<{ deps: DashboardDeps }> = async (app, { deps }) => {
    await app.register(privacyRoutes, { deps, privacy, store, erasure });
  };
  const jobKinds: Record<string, JobKind> = { [ERASURE_JOB]: erasureJobKind(erasure) };
  return { erasure, routes, jobKinds };
}

export { createErasureService, createTokenHasher, ERASURE_JOB } from './erasure.js';
