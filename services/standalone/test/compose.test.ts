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
