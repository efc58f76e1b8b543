/**
 * For tests only (they are entry points, so reading the environment here is allowed).
 * A server-backed test runs when its variable is set; when it is not set it is skipped
 * locally, but under CI (CI=true) a missing variable is a failure, never a silent skip.
 */
export function serverUnderTest(name: 'DATABASE_URL' | 'KAFKA_BROKERS' | 'CLICKHOUSE_URL'): { value?: string; skip: string | false } {
  const value = process.env[name];
  if (value) return { value, skip: false };
  if (process.env.CI === 'true' && name !== 'CLICKHOUSE_URL') {
    throw new Error(`${name} must be set under CI: the server-backed tests may not be skipped`);
  }
  return { skip: `${name} not set; server-backed variant skipped` };
}
