export { clickhouseHttp, CLICKHOUSE_HTTP_MAX_URI_BYTES, type ClickHouseHttpOptions } from './plugin.js';
export { sqlApiKeyAuth, sqlKeyAuth, BOOTSTRAP_KEY_NAME } from './auth.js';
export type { SqlPrincipal } from './governor.js';
export { limitSettings } from './limits.js';
export { createQueryLogWriter, type QueryLogWriter, type SqlQueryLogEntry } from './query-log.js';
