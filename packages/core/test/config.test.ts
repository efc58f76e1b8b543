import t from 'tap';
import { loadConfig, ConfigError, KNOWN_ENV, listeningOn, localAppUrl } from '../src/config.js';

t.test('defaults follow the configuration table in README.md', async (t) => {
  const c = loadConfig({}, '/srv');
  t.equal(c.port, 3000);
  t.equal(c.host, '127.0.0.1');
  t.equal(c.dataDir, '/srv/data');
  t.equal(c.clickhouse.database, 'analytics');
  t.equal(c.clickhouse.embeddedConnections, 2);
  t.equal(c.clickhouse.cluster, undefined, 'one ClickHouse node unless CLICKHOUSE_CLUSTER names a cluster');
  t.equal(c.kafka.topic, 'analytics-events');
  t.equal(c.kafka.dlqTopic, 'analytics-events-dlq');
  t.equal(c.kafka.groupId, 'analytics-consumer');
  t.equal(c.kafka.createTopics, true);
  t.equal(c.kafka.idempotent, true);
  t.equal(c.appUrl, 'http://localhost:3000', 'the default PORT\'s local address');
  t.equal(c.appUrlExplicit, false, 'the default APP_URL is a local start');
  t.equal(c.passwordReset.expireMinutes, 60);
  t.equal(c.passwordReset.throttleSeconds, 60);
  t.equal(c.track.rateLimitPerMinute, 120);
  t.equal(c.track.allowedOrigins, undefined);
  t.equal(c.logLevel, 'info');
  t.equal(c.ingestPort, 3001);
  t.equal(c.dashboardPort, 3002);
  t.equal(c.consumerPort, 3003);
  t.equal(c.sql.limits.maxThreads, 1, 'a data-team query runs on one thread');
  t.same(c.digest, { weekday: 1, hourUtc: 7 }, 'the weekly digest: Monday 07:00 UTC');
  t.same(c.alerts, { evaluateSeconds: 60, webhookAllowPrivate: false }, 'alerts every minute; no webhook to private addresses');
});

t.test('DIGEST_WEEKDAY takes 1-7 or an English weekday name; DIGEST_HOUR_UTC 0-23', async (t) => {
  const cases: [string, number][] = [['1', 1], ['7', 7], ['monday', 1], ['Sunday', 7], ['wed', 3], ['Fri', 5], ['saturday', 6], ['thu', 4], ['Tuesday', 2]];
  for (const [value, weekday] of cases) t.equal(loadConfig({ DIGEST_WEEKDAY: value }).digest.weekday, weekday, value);
  t.equal(loadConfig({ DIGEST_HOUR_UTC: '0' }).digest.hourUtc, 0);
  t.equal(loadConfig({ DIGEST_HOUR_UTC: '23' }).digest.hourUtc, 23);
});

t.test('alert variables', async (t) => {
  t.same(loadConfig({ ALERT_EVALUATE_SECONDS: '2', ALERT_WEBHOOK_ALLOW_PRIVATE: 'true' }).alerts, { evaluateSeconds: 2, webhookAllowPrivate: true });
  t.throws(() => loadConfig({ ALERT_EVALUATE_SECONDS: '0' }), /Invalid environment variable ALERT_EVALUATE_SECONDS/);
  t.throws(() => loadConfig({ ALERT_WEBHOOK_ALLOW_PRIVATE: 'maybe' }), /Invalid environment variable ALERT_WEBHOOK_ALLOW_PRIVATE/);
});

t.test('parses lists, booleans and fractions', async (t) => {
  const c = loadConfig({
    KAFKA_BROKERS: 'a:9092,b:9092', KAFKA_IDEMPOTENT: 'false', ALLOWED_ORIGINS: 'https://a.test, *.b.test',
    PASSWORD_RESET_EXPIRE_MINUTES: '0.5', APP_URL: 'https://app.test/', KAFKA_PARTITIONS: '12', KAFKA_REPLICATION_FACTOR: '3',
    CLICKHOUSE_EMBEDDED_CONNECTIONS: '4', SQL_MAX_THREADS: '2', KAFKA_RETENTION_HOURS: '72', CONSUMER_LAG_ALERT_SECONDS: '60',
  });
  t.equal(c.sql.limits.maxThreads, 2);
  t.same(c.kafka.brokers, ['a:9092', 'b:9092']);
  t.equal(c.kafka.idempotent, false);
  t.equal(c.kafka.partitions, 12);
  t.equal(c.kafka.replicationFactor, 3);
  t.equal(c.clickhouse.embeddedConnections, 4);
  t.throws(() => loadConfig({ CLICKHOUSE_CLUSTER: 'chatlytics' }), /^Invalid environment variable CLICKHOUSE_CLUSTER: needs CLICKHOUSE_URL/, 'the embedded engine is one node');
  t.equal(loadConfig({ CLICKHOUSE_CLUSTER: 'chatlytics', CLICKHOUSE_URL: 'http://ch:8123' }).clickhouse.cluster, 'chatlytics');
  t.equal(c.kafka.retentionHours, 72);
  t.equal(c.consumerLagAlertSeconds, 60);
  t.match(loadConfig({}).kafka, { partitions: 24, replicationFactor: 1, retentionHours: 168, createTopics: true, idempotent: true }, 'Kafka defaults');
  t.equal(loadConfig({}).consumerLagAlertSeconds, 300, 'lag alert default: 5 minutes');
  t.equal(loadConfig({}).consumerFlushMs, 250, 'one node: a flush every quarter second at most');
  t.equal(loadConfig({ CLICKHOUSE_CLUSTER: 'c', CLICKHOUSE_URL: 'http://ch:8123' }).consumerFlushMs, 1000, 'a cluster: one insert a second per consumer');
  t.equal(loadConfig({ CLICKHOUSE_CLUSTER: 'c', CLICKHOUSE_URL: 'http://ch:8123', CONSUMER_FLUSH_MS: '500' }).consumerFlushMs, 500);
  t.same(c.track.allowedOrigins, ['https://a.test', '*.b.test']);
  t.equal(c.passwordReset.expireMinutes, 0.5);
  t.equal(c.appUrl, 'https://app.test');
  t.equal(c.appUrlExplicit, true);
});

const bad: [string, string][] = [
  ['PORT', 'abc'], ['PORT', '70000'], ['DATABASE_URL', 'mysql://x'], ['CLICKHOUSE_URL', 'ftp://x'],
  ['TRACK_RATE_LIMIT_PER_MINUTE', '0'], ['LOG_LEVEL', 'loud'], ['SESSION_SECRET', 'short'],
  ['PASSWORD_RESET_EXPIRE_MINUTES', '-1'], ['KAFKA_CREATE_TOPICS', 'maybe'], ['KAFKA_PARTITIONS', '0'], ['CLICKHOUSE_DATABASE', 'a-b'], ['CLICKHOUSE_CLUSTER', 'a b; DROP'],
  ['KAFKA_RETENTION_HOURS', '0'], ['CONSUMER_LAG_ALERT_SECONDS', '1.5'], ['CONSUMER_FLUSH_MS', '0'],
  ['CLICKHOUSE_EMBEDDED_CONNECTIONS', '0'], ['CLICKHOUSE_EMBEDDED_CONNECTIONS', '17'], ['SQL_MAX_THREADS', '0'],
  ['DIGEST_WEEKDAY', '0'], ['DIGEST_WEEKDAY', '8'], ['DIGEST_WEEKDAY', 'someday'], ['DIGEST_WEEKDAY', 'mo'], ['DIGEST_HOUR_UTC', '24'], ['DIGEST_HOUR_UTC', '-1'],
  ['DIGEST_HOUR_UTC', '7.5'],
];
for (const [name, value] of bad) {
  t.test(`a bad ${name} stops start-up with one line naming it`, async (t) => {
    try {
      loadConfig({ [name]: value });
      t.fail('should throw');
    } catch (err) {
      t.type(err, ConfigError);
      t.match((err as Error).message, new RegExp(`^Invalid environment variable ${name}: `));
      t.notMatch((err as Error).message, /\n/);
    }
  });
}

t.test('every known variable is documented in the order of the configuration table in README.md', async (t) => {
  t.ok(KNOWN_ENV.includes('SQL_API_KEY'));
  t.ok(KNOWN_ENV.includes('TRUST_PROXY'));
});

t.test('without APP_URL, links use the address the server listens on', async (t) => {
  const c = loadConfig({ PORT: '3950' });
  t.equal(c.appUrl, 'http://localhost:3950');
  t.equal(c.ingestPublicUrl, 'http://localhost:3950');
  t.equal(c.appUrlExplicit, false);
  t.equal(loadConfig({ PORT: '3950', HOST: '0.0.0.0' }).appUrl, 'http://localhost:3950', 'a wildcard HOST is this machine');
  t.equal(loadConfig({ PORT: '8080', HOST: '192.0.2.7' }).appUrl, 'http://192.0.2.7:8080');
  t.equal(loadConfig({ PORT: '3950', APP_URL: 'https://shop.example/' }).appUrl, 'https://shop.example', 'APP_URL wins');
  t.equal(localAppUrl('fe80::1', 4000), 'http://[fe80::1]:4000');
  const zero = listeningOn(loadConfig({ PORT: '0' }), 41234);
  t.same([zero.port, zero.appUrl, zero.ingestPublicUrl], [41234, 'http://localhost:41234', 'http://localhost:41234'], 'PORT=0 resolved once before start-up');
  const explicit = listeningOn(loadConfig({ PORT: '0', APP_URL: 'https://a.example', INGEST_PUBLIC_URL: 'https://i.example' }), 41234);
  t.same([explicit.appUrl, explicit.ingestPublicUrl], ['https://a.example', 'https://i.example']);
  t.equal(listeningOn(loadConfig({ PORT: '0', INGEST_PUBLIC_URL: 'https://i.example' }), 5).ingestPublicUrl, 'https://i.example');
});
