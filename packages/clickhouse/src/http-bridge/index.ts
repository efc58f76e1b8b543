export { clickhouseHttp, type ClickHouseHttpOptions } from './plugin.js';
export { sqlApiKeyAuth } from './auth.js';
