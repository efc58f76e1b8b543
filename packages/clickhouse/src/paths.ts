/**
 * The SQL folders, handed in by the clickhouse/ folder's own module (@chatlytics/clickhouse-sql)
 * rather than found by climbing from this file: the SQL is owned by clickhouse/, this package
 * only runs it.
 */
export { CLICKHOUSE_DIR, MIGRATIONS_DIR, QUERIES_DIR, VIEWS_DIR } from '@chatlytics/clickhouse-sql';
