import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import type { Logger } from '@chatlytics/core';
import { createChdbEngine } from './chdb-engine.js';
import { CLICKHOUSE_DIR } from './paths.js';
import type { ClickHouseEngine } from './types.js';

/**
 * `@chatlytics/clickhouse/testing`: the cluster form on the embedded engine (clickhouse/deploy/
 * README.md, "What runs in CI"). One chdb process is a cluster of two shards, `127.0.0.1` and
 * `localhost`: the same node under two host names, both local (their port is the config's
 * `tcp_port`), so a Distributed table routes each row by its sharding key and reads every shard
 * whose rows a query may need, and an in-process Keeper (`testkeeper`) holds the replicated
 * tables' paths. What clickhouse-local cannot do is emulated, and only that:
 * - it runs no distributed DDL queue (`ON CLUSTER` is code 392): the node is every node of the
 *   cluster, so the clause is dropped and the statement runs once;
 * - both shards are this node, so an INSERT … SELECT between Distributed tables runs on the
 *   initiator (parallel_distributed_insert_select = 0), not once per shard over the same rows;
 * - it has no interserver port, so a replicated table stays read-only (it is created, and takes
 *   its Keeper path: code 253 is real); `tables: 'plain'` gives each one its MergeTree engine
 *   without the Keeper arguments, for the runs that insert.
 * Both shards are one node and one set of tables: a read that is not narrowed to one shard reads
 * every row twice (a chatbot's read must be: `optimize_skip_unused_shards`), and a block split
 * over both shards must carry no insert token (its two halves, one token, would be one block
 * twice): insert one chatbot per block when a test needs the token.
 */
export interface ChdbClusterOptions {
  /** The engine's data directory (one per process: a chdb limit); the config is written beside it. */
  path: string;
  database: string;
  log: Logger;
  /** 'replicated' (default): the rendered engines as they are; 'plain': without Keeper (inserts work). */
  tables?: 'replicated' | 'plain';
  /** Session settings; by default the services' production profile (deploy/users.d/cluster_inserts.xml). */
  settings?: Record<string, string | number>;
}

export interface ChdbCluster {
  engine: ClickHouseEngine;
  /** The remote_servers name (CLICKHOUSE_CLUSTER). */
  cluster: string;
  tcpPort: number;
  configFile: string;
}

export const TEST_CLUSTER = 'chatlytics';
const PROFILE = path.join(CLICKHOUSE_DIR, 'deploy', 'users.d', 'cluster_inserts.xml');

/** The `default` profile's settings of the cluster's services (users.d/cluster_inserts.xml), as the server applies them. */
export function clusterProfileSettings(file = PROFILE): Record<string, string> {
  const xml = readFileSync(file, 'utf8').replace(/<!--[\s\S]*?-->/g, '');
  const body = /<default>([\s\S]*?)<\/default>/.exec(xml)?.[1] ?? '';
  return Object.fromEntries([...body.matchAll(/<([a-z_]+)>([^<]*)<\/\1>/g)].map((m) => [m[1], m[2].trim()]));
}

/** The config of the one-node, two-shard cluster. */
export function clusterConfig(tcpPort: number, cluster = TEST_CLUSTER): string {
  const shard = (host: string) => `      <shard><internal_replication>true</internal_replication><replica><host>${host}</host><port>${tcpPort}</port></replica></shard>`;
  return `<clickhouse>
  <tcp_port>${tcpPort}</tcp_port>
  <remote_servers>
    <${cluster}>
${shard('127.0.0.1')}
${shard('localhost')}
    </${cluster}>
  </remote_servers>
  <macros><shard>01</shard><replica>r1</replica></macros>
  <zookeeper><implementation>testkeeper</implementation></zookeeper>
</clickhouse>
`;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** A rendered statement as this one node runs it (see ChdbClusterOptions). */
export function forOneNode(sql: string, opts: { cluster?: string; tables?: 'replicated' | 'plain' } = {}): string {
  const cluster = opts.cluster ?? TEST_CLUSTER;
  let out = sql.replace(new RegExp(`\\s+ON\\s+CLUSTER\\s+${cluster}\\b`, 'gi'), '');
  // Both shards are this node: an INSERT … SELECT between Distributed tables, run on every shard
  // (parallel_distributed_insert_select, 2 by default), would read and write the same rows twice.
  out = out.replace(/^(\s*INSERT\s+INTO\s+[A-Za-z_][A-Za-z0-9_]*)(\s+)(?=(WITH|SELECT)\b)/i, '$1 SETTINGS parallel_distributed_insert_select = 0$2');
  if (opts.tables === 'plain') out = out.replace(/\bReplicated(\w*MergeTree)\(\s*'[^']*'\s*,\s*'[^']*'\s*(?:,\s*)?/g, '$1(');
  return out;
}

/**
 * The chdb engine as a node of the test cluster. Called again with the same `path` (another
 * database, another `tables` mode), it joins the same process-wide engine and config.
 */
export async function createChdbCluster(opts: ChdbClusterOptions): Promise<ChdbCluster> {
  mkdirSync(opts.path, { recursive: true });
  const configFile = path.join(opts.path, 'cluster-config.xml');
  let tcpPort: number;
  if (existsSync(configFile)) {
    tcpPort = Number(/<tcp_port>(\d+)<\/tcp_port>/.exec(readFileSync(configFile, 'utf8'))![1]);
  } else {
    tcpPort = await freePort();
    writeFileSync(configFile, clusterConfig(tcpPort));
  }
  // Both shards are this one node: an INSERT … SELECT between Distributed tables run on every
  // shard (parallel_distributed_insert_select, 2 by default) would run twice over the same rows.
  const settings = { ...(opts.settings ?? clusterProfileSettings()) };
  const inner = await createChdbEngine({
    path: path.join(opts.path, 'data'),
    database: opts.database,
    log: opts.log,
    connectionArgs: [`--config-file=${configFile}`, ...Object.entries(settings).map(([k, v]) => `--${k}=${v}`)],
  });
  const tables = opts.tables ?? 'replicated';
  const engine: ClickHouseEngine = {
    kind: inner.kind,
    database: inner.database,
    command: (sql, params) => inner.command(forOneNode(sql, { tables }), params),
    query: (sql, params) => inner.query(sql, params),
    insert: (table, rows, o) => inner.insert(table, rows, o),
    ping: () => inner.ping(),
    close: () => inner.close(),
  };
  return { engine, cluster: TEST_CLUSTER, tcpPort, configFile };
}
