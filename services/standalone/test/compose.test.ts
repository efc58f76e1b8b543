import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { KNOWN_ENV, SQL_LIMIT_DEFAULTS, SQL_QUOTA_DEFAULTS } from '@chatlytics/core';
import { limitSettings } from '@chatlytics/clickhouse';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const compose = parse(fs.readFileSync(path.join(root, 'docker-compose.yml'), 'utf8'), { merge: true });

t.test('docker-compose.yml parses and wires the whole topology', async (t) => {
  for (const name of ['kafka', 'clickhouse', 'postgres', 'ingest', 'consumer', 'dashboard']) {
    t.ok(compose.services[name], `service ${name}`);
    t.ok(compose.services[name].healthcheck, `${name} has a healthcheck`);
  }
  for (const [name, id] of [['kafka', 1], ['kafka-2', 2], ['kafka-3', 3]] as const) {
    const env = compose.services[name].environment;
    t.match(env.KAFKA_PROCESS_ROLES, /controller/, `${name} runs in KRaft mode`);
    t.equal(env.KAFKA_NODE_ID, id, `${name} is node ${id}`);
    t.equal(env.KAFKA_ADVERTISED_LISTENERS, `PLAINTEXT://${name}:9092`, `${name} advertises itself`);
    t.equal(env.KAFKA_MIN_INSYNC_REPLICAS, 2, 'a write needs 2 of the 3 replicas');
  }
  t.equal(compose.services.ingest.environment.KAFKA_REPLICATION_FACTOR, 3, 'topics created with 3 replicas');
  t.same(compose.services.ingest.command, ['node', '--enable-source-maps', 'dist/ingest.js']);
  t.same(compose.services.consumer.command, ['node', '--enable-source-maps', 'dist/consumer.js']);
  t.same(compose.services.dashboard.command, ['node', '--enable-source-maps', 'dist/dashboard.js']);
});

t.test('every environment name of the chatlytics services is one the config knows', async (t) => {
  const known = new Set<string>(KNOWN_ENV);
  for (const name of ['ingest', 'consumer', 'dashboard']) {
    const env = Object.keys(compose.services[name].environment ?? {});
    t.ok(env.length > 5, `${name} has an environment`);
    for (const key of env) t.ok(known.has(key), `${name}: ${key} is a config variable`);
  }
});

t.test('the data team user is read-only with limits', async (t) => {
  const mount = compose.services.clickhouse.volumes.find((v: string) => v.includes('users.d'));
  t.ok(mount, 'users.d mounted');
  const xml = fs.readFileSync(path.join(root, mount.split(':')[0]), 'utf8');
  t.match(xml, /<readonly>1<\/readonly>/);
  t.match(xml, /<max_execution_time>\d+<\/max_execution_time>/);
  t.match(xml, /<max_memory_usage>\d+<\/max_memory_usage>/);
});

t.test("the data team user has the embedded interface's limits and quotas, number for number", async (t) => {
  const xml = fs.readFileSync(path.join(root, 'clickhouse/deploy/users.d/data_team.xml'), 'utf8');
  const section = (name: string) => new RegExp(`<${name}>([\\s\\S]*?)</${name}>`).exec(xml)?.[1] ?? '';
  const profile = section('profiles');
  const value = (block: string, name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(block)?.[1];
  for (const [name, expected] of Object.entries(limitSettings(SQL_LIMIT_DEFAULTS))) {
    t.equal(value(profile, name), String(expected), `profile ${name}`);
  }
  t.equal(value(profile, 'max_concurrent_queries_for_user'), String(SQL_LIMIT_DEFAULTS.maxConcurrentQueries));
  t.equal(value(profile, 'readonly'), '1');
  const quota = section('quotas');
  t.equal(value(quota, 'duration'), '3600');
  t.equal(value(quota, 'queries'), String(SQL_QUOTA_DEFAULTS.queriesPerHour));
  t.equal(value(quota, 'read_rows'), String(SQL_QUOTA_DEFAULTS.readRowsPerHour));
});

t.test('ClickHouse runs as the cluster CLICKHOUSE_CLUSTER names: two replicas, three Keeper nodes, one macro file each', async (t) => {
  const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');
  const all = (xml: string, tag: string) => [...xml.matchAll(new RegExp(`<${tag}>([^<]*)</${tag}>`, 'g'))].map((m) => m[1]);
  const mounts = (service: string) => new Map<string, string>((compose.services[service].volumes as string[])
    .filter((v) => v.startsWith('./')).map((v) => [v.split(':')[1], v.split(':')[0]]));

  const cluster = read('clickhouse/deploy/config.d/cluster.xml').replace(/<!--[\s\S]*?-->/g, '');
  const name = /<remote_servers>\s*<([A-Za-z_][A-Za-z0-9_]*)>/.exec(cluster)?.[1];
  for (const service of ['ingest', 'consumer', 'dashboard']) {
    t.equal(compose.services[service].environment.CLICKHOUSE_CLUSTER, name, `${service} renders for the cluster of remote_servers`);
    t.ok(compose.services[service].depends_on['clickhouse-2'], `${service} waits for the second replica`);
  }
  const replicas = all(cluster.slice(cluster.indexOf('<remote_servers>'), cluster.indexOf('</remote_servers>')), 'host');
  t.same(replicas, ['clickhouse', 'clickhouse-2'], 'one shard, two replicas, both compose services');
  t.equal((cluster.match(/<shard>/g) ?? []).length, 1);
  t.match(cluster, /<internal_replication>true<\/internal_replication>/, 'Distributed writes one replica, replication copies');

  t.same(all(read('clickhouse/deploy/config.d/priorities.xml'), 'os_threads_nice_value_merge_mutate'), ['19'], 'merges and mutations at nice 19');
  const keeper = read('clickhouse/deploy/keeper/keeper.xml');
  const keeperPort = all(keeper, 'tcp_port')[0];
  const zk = cluster.slice(cluster.indexOf('<zookeeper>'), cluster.indexOf('</zookeeper>'));
  t.same(all(zk, 'host'), ['keeper-1', 'keeper-2', 'keeper-3'], 'ClickHouse knows the three Keeper nodes');
  t.same([...new Set(all(zk, 'port'))], [keeperPort], 'on the port Keeper listens on');
  t.same(all(keeper, 'hostname'), ['keeper-1', 'keeper-2', 'keeper-3'], 'the Raft group is the three services');
  for (const [i, service] of ['keeper-1', 'keeper-2', 'keeper-3'].entries()) {
    t.ok(compose.services[service].healthcheck, `${service} has a healthcheck`);
    t.equal(Number(compose.services[service].environment.KEEPER_SERVER_ID), i + 1, `${service} is Raft server ${i + 1}`);
    t.equal(mounts(service).get('/etc/clickhouse-keeper/keeper_config.xml'), './clickhouse/deploy/keeper/keeper.xml');
    t.ok(compose.services.clickhouse.depends_on[service], `ClickHouse waits for ${service}`);
  }

  const macros = ['clickhouse', 'clickhouse-2'].map((service) => {
    const m = mounts(service);
    t.ok(compose.services[service].healthcheck, `${service} has a healthcheck`);
    t.equal(m.get('/etc/clickhouse-server/config.d/cluster.xml'), './clickhouse/deploy/config.d/cluster.xml', `${service} has the cluster`);
    t.equal(m.get('/etc/clickhouse-server/users.d/data_team.xml'), './clickhouse/deploy/users.d/data_team.xml', `${service} has the data team user`);
    t.equal(m.get('/etc/clickhouse-server/users.d/cluster_inserts.xml'), './clickhouse/deploy/users.d/cluster_inserts.xml', `${service} has the insert settings`);
    t.equal(m.get('/etc/clickhouse-server/config.d/priorities.xml'), './clickhouse/deploy/config.d/priorities.xml', `${service} runs merges and mutations below queries`);
    t.ok((compose.services[service].cap_add ?? []).includes('SYS_NICE'), `${service} may set that nice value`);
    const xml = read(m.get('/etc/clickhouse-server/config.d/macros.xml')!);
    return { shard: all(xml, 'shard')[0], replica: all(xml, 'replica')[0] };
  });
  t.equal(macros[0].shard, macros[1].shard, 'both nodes are replicas of the same shard');
  t.not(macros[0].replica, macros[1].replica, 'with distinct replica names');
  t.not(compose.services.clickhouse.volumes[0], compose.services['clickhouse-2'].volumes[0], 'each node its own data volume');

  const inserts = read('clickhouse/deploy/users.d/cluster_inserts.xml');
  t.equal(Number(all(inserts, 'insert_quorum')[0]), replicas.length, 'an acknowledged insert is on every replica (copy detection)');
  t.equal(all(inserts, 'distributed_foreground_insert')[0], '1', 'acknowledged once stored, not queued');
});

t.test('the fault-drill cluster: two shards of two replicas, one Keeper, the services\' profile', async (t) => {
  const drill = parse(fs.readFileSync(path.join(root, 'clickhouse/deploy/cluster-compose.yml'), 'utf8'), { merge: true });
  const nodes = Object.keys(drill.services).filter((n) => n.startsWith('ch-'));
  t.same(nodes.map((n) => `${drill.services[n].environment.CH_SHARD}/${drill.services[n].environment.CH_REPLICA}`),
    ['01/ch-s1-r1', '01/ch-s1-r2', '02/ch-s2-r1', '02/ch-s2-r2']);
  const xml = fs.readFileSync(path.join(root, 'clickhouse/deploy/cluster-2x2/cluster.xml'), 'utf8').replace(/<!--[\s\S]*?-->/g, '');
  const shards = [...xml.matchAll(/<shard>([\s\S]*?)<\/shard>/g)].map((m) => [...m[1].matchAll(/<host>([^<]+)<\/host>/g)].map((h) => h[1]));
  t.same(shards, [['ch-s1-r1', 'ch-s1-r2'], ['ch-s2-r1', 'ch-s2-r2']], 'remote_servers names every node under its shard');
  for (const n of nodes) {
    t.ok(drill.services[n].volumes.some((v: string) => v.startsWith('./users.d/cluster_inserts.xml:')), `${n} has the services' profile`);
    t.ok(fs.existsSync(path.join(root, 'clickhouse/deploy', drill.services[n].volumes[0].split(':')[0])), `${n}'s config exists`);
  }
  t.ok(drill.services.keeper.healthcheck, 'the Keeper has a health check');
});
