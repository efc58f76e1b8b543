import { spawnSync } from 'node:child_process';

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

/**
 * A test that needs programs on PATH (e.g. java, javac and mvn for the JDBC client test): skipped
 * locally when one is missing, a failure under CI (CI=true), as serverUnderTest does.
 */
export function toolsUnderTest(...tools: string[]): { skip: string | false } {
  const missing = tools.filter((tool) => spawnSync(tool, ['-version'], { stdio: 'ignore' }).error !== undefined);
  if (missing.length === 0) return { skip: false };
  if (process.env.CI === 'true') throw new Error(`${missing.join(', ')} must be installed under CI: the tests needing them may not be skipped`);
  return { skip: `${missing.join(', ')} not found; test skipped` };
}
