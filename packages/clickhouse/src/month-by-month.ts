import type { QueryParams } from './types.js';

/**
 * The parameters a privacy statement runs with (privacy/erase_token.sql,
 * privacy/retention_delete.sql): one run per month, in order, where it names `{month}` (a
 * mutation over one partition keeps one background thread busy, not one per part), else one run.
 */
export function paramsPerMonth(statement: string, params: QueryParams, months: readonly (number | string)[]): QueryParams[] {
  return /\{month:/.test(statement) ? months.map((month) => ({ ...params, month: Number(month) })) : [params];
}
