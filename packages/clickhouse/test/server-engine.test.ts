import t from 'tap';
import { createLogger } from '@chatlytics/core';
// testing.ts is not part of core's public entry point (it is test-only).
import { serverUnderTest } from '@chatlytics/core/testing';
import { createServerEngine } from '../src/server-engine.js';
import { engineContract } from './contract.js';
import { startBridge, tempDataDir } from './helpers.js';

/**
 * The @clickhouse/client engine, exercised for real: against a WRITABLE instance of our
 * HTTP bridge (mounted under /clickhouse, like the service does), and against a ClickHouse
 * server when CLICKHOUSE_URL is set.
 */
const log = createLogger('silent');

t.test('through the HTTP bridge', async (t) => {
  const dir = tempDataDir(t);
  const { app, url } = await startBridge([{ prefix: '/clickhouse', opts: { sessionPath: dir, database: 'default', readonly: false } }]);
  t.teardown(() => app.close());
  engineContract(t, () => createServerEngine({
    url, user: 'default', password: '', database: 'contract', pathname: '/clickhouse', log, requestTimeoutMs: 20_000,
  }));
});

const server = serverUnderTest('CLICKHOUSE_URL');
t.test('against a ClickHouse server', { skip: server.skip }, async (t) => {
  const database = `contract_${process.pid}`;
  engineContract(t, () => createServerEngine({ url: server.value!, user: 'default', password: '', database, log }));
});
