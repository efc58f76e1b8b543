export type { ClickHouseEngine, InsertOptions, QueryParams } from './types.js';
export { createChdbEngine, type ChdbEngineOptions } from './chdb-engine.js';
export { createServerEngine, type ServerEngineOptions } from './server-engine.js';
export { createClickHouse } from './create.js';
export {
  runMigrations, readMigrations, batchedFillName, renderMigrations, printMigrations, ledgerDdl, rendererAfterMigrations,
  type MigrationFile, type MigrationResult, type MigrationOptions, type RenderedMigration,
} from './migrations.js';
export { createRenderer, LOCAL_SUFFIX, type ClusterOptions, type RenderedStatement } from './cluster-ddl.js';
export { sqlFile, sqlFragment } from './sql-files.js';
export { clickhouseTime, parseClickhouseTime } from './time.js';
export { rebuildRollups, type RollupRebuild } from './rollups.js';
export { VIEWS, VIEW_FED_TABLES, viewSelect, type ViewDefinition } from './views.js';
export { splitStatements } from './sql-split.js';
export {
  ID_SLOTS, ID_SLOT_BITS, consumerIdSlot, tokenIdOf, createTokenIdStore, KnownTokenIds, TokenIdAllocator, claimRunSlot, CLAIM_SETTLE_MS,
  type TokenRef, type TokenIdRow, type TokenIdStore, type Assigned,
} from './token-ids.js';
export { EVENT_INSERT_SETTINGS, insertKeyOf, tokenRefOf, createEventRowsWriter, type EventRow, type EventRowsWriter } from './event-writer.js';
export { ClickHouseError, ClickHouseErrorCode } from './errors.js';
export { CLICKHOUSE_DIR, MIGRATIONS_DIR, QUERIES_DIR } from './paths.js';
export {
  clickhouseHttp, CLICKHOUSE_HTTP_MAX_URI_BYTES, sqlApiKeyAuth, sqlKeyAuth, BOOTSTRAP_KEY_NAME, limitSettings, createQueryLogWriter,
  type ClickHouseHttpOptions, type SqlPrincipal, type QueryLogWriter, type SqlQueryLogEntry,
} from './http-bridge/index.js';
export { verifyAggregates, daysToRepair, repairDays, TOKEN_ID_CHECKS, KEPT_PAST_RETENTION, type VerifyScope, type Difference, type RepairResult } from './verify.js';
export { deleteOnShards, storeCluster } from './cluster-store.js';
export { repairTokenIds, type TokenIdRepair } from './repair-token-ids.js';
export { backfillTokenIds, BACKFILL_BATCH_ROWS, type TokenIdBackfill } from './backfill-token-ids.js';
export {
  ERASED_TOKENS_REFRESH_MS, ERASED_TOKENS_SETTLE_MS, erasedTokenDigest, erasedTokenPrefilter, markTokenErased, loadErasedTokens, eraseTokenRows,
  type ErasedTokenList, type TokenErasure,
} from './erase-token.js';
export { applyRetention, purgeDeletedRows, type RetentionRun } from './retention.js';
export { BACKGROUND_PACE } from './paced.js';
