import t from 'tap';
import { createRenderer } from '../src/cluster-ddl.js';
import { readMigrations, renderMigrations, ledgerDdl } from '../src/migrations.js';

const cluster = { cluster: 'main', database: 'analytics' };
const flat = (r: ReturnType<typeof createRenderer>, sql: string) => r.render(sql).map((s) => s.sql);

t.test('without a cluster every migration statement is the file\'s own, byte for byte', async (t) => {
  const migrations = readMigrations();
  const rendered = renderMigrations(migrations, { database: 'analytics' });
  t.same(rendered.map((m) => m.statements.map((s) => s.sql)), migrations.map((m) => m.statements));
  t.notOk(rendered.some((m) => m.statements.some((s) => s.skipped)), 'nothing skipped');
  t.notMatch(ledgerDdl(), /CLUSTER|Replicated/);
});

t.test('each MergeTree form becomes its Replicated form with the macros, original arguments last', async (t) => {
  const forms: [string, string][] = [
    ['MergeTree', "ReplicatedMergeTree('/clickhouse/tables/{shard}/{database}/t_local', '{replica}')"],
    ['MergeTree()', "ReplicatedMergeTree('/clickhouse/tables/{shard}/{database}/t_local', '{replica}')"],
    ['ReplacingMergeTree', "ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/t_local', '{replica}')"],
    ['ReplacingMergeTree(ver)', "ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/t_local', '{replica}', ver)"],
    ['SummingMergeTree((a, b))', "ReplicatedSummingMergeTree('/clickhouse/tables/{shard}/{database}/t_local', '{replica}', (a, b))"],
    ['AggregatingMergeTree', "ReplicatedAggregatingMergeTree('/clickhouse/tables/{shard}/{database}/t_local', '{replica}')"],
    ['CollapsingMergeTree(sign)', "ReplicatedCollapsingMergeTree('/clickhouse/tables/{shard}/{database}/t_local', '{replica}', sign)"],
  ];
  for (const [engine, replicated] of forms) {
    const [local, dist] = flat(createRenderer(cluster), `CREATE TABLE IF NOT EXISTS t (chatbot_id String, sign Int8, ver UInt64) ENGINE = ${engine} ORDER BY chatbot_id`);
    t.equal(local, `CREATE TABLE IF NOT EXISTS t_local ON CLUSTER main (chatbot_id String, sign Int8, ver UInt64) ENGINE = ${replicated} ORDER BY chatbot_id`, engine);
    t.equal(dist, 'CREATE TABLE IF NOT EXISTS t ON CLUSTER main AS t_local\nENGINE = Distributed(main, analytics, t_local, cityHash64(chatbot_id))', `${engine}: the Distributed table keeps the name`);
  }
});

t.test('comments, nested parentheses, PARTITION/ORDER/TTL/SETTINGS clauses pass through; a table without chatbot_id is sharded by its first column', async (t) => {
  const sql = `-- a comment naming ENGINE = Memory and (unbalanced
CREATE TABLE log
(
    key Tuple(a String, b Array(Tuple(x UInt8, y Map(String, UInt8)))), -- chatbot_id in a comment
    at DateTime64(3, 'UTC') CODEC(ZSTD(3)),
    INDEX i key TYPE bloom_filter(0.01) GRANULARITY 4
)
ENGINE = MergeTree
-- Monthly
PARTITION BY toYYYYMM(at)
ORDER BY (key, at)
TTL toDateTime(at) + INTERVAL 90 DAY
SETTINGS ttl_only_drop_parts = 1`;
  const [local, dist] = flat(createRenderer(cluster), sql);
  t.equal(local, sql.replace('CREATE TABLE log', 'CREATE TABLE log_local ON CLUSTER main')
    .replace('ENGINE = MergeTree\n', "ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/{database}/log_local', '{replica}')\n"));
  t.match(dist, /Distributed\(main, analytics, log_local, cityHash64\(key\)\)$/, 'deterministic: a retried block goes where its first attempt went');
});

t.test('a Null table and its AS clone: Null on every node, a Distributed in front, the key of the cloned table', async (t) => {
  const r = createRenderer(cluster);
  r.render('CREATE TABLE events (chatbot_id String) ENGINE = MergeTree ORDER BY chatbot_id');
  t.same(flat(r, 'CREATE TABLE IF NOT EXISTS events_input AS events ENGINE = Null'), [
    'CREATE TABLE IF NOT EXISTS events_input_local ON CLUSTER main AS events_local ENGINE = Null',
    'CREATE TABLE IF NOT EXISTS events_input ON CLUSTER main AS events_input_local\nENGINE = Distributed(main, analytics, events_input_local, cityHash64(chatbot_id))',
  ]);
});

t.test('a materialized view reads and writes the local tables on each node; plain statements keep the Distributed names', async (t) => {
  const r = createRenderer(cluster);
  r.render('CREATE TABLE events (chatbot_id String, event String) ENGINE = MergeTree ORDER BY chatbot_id');
  r.render('CREATE TABLE agg (chatbot_id String, n UInt64) ENGINE = SummingMergeTree ORDER BY chatbot_id');
  t.same(flat(r, "CREATE MATERIALIZED VIEW IF NOT EXISTS agg_mv TO agg AS SELECT chatbot_id, count() AS n FROM events WHERE event = 'events' AND chatbot_id IN (SELECT chatbot_id FROM events) GROUP BY chatbot_id"), [
    "CREATE MATERIALIZED VIEW IF NOT EXISTS agg_mv ON CLUSTER main TO agg_local AS SELECT chatbot_id, count() AS n FROM events_local WHERE event = 'events' AND chatbot_id IN (SELECT chatbot_id FROM events_local) GROUP BY chatbot_id",
  ]);
  t.same(flat(r, 'CREATE MATERIALIZED VIEW w TO agg AS SELECT events.chatbot_id, count() AS agg FROM events\nJOIN agg AS a USING (chatbot_id) GROUP BY events.chatbot_id'), [
    'CREATE MATERIALIZED VIEW w ON CLUSTER main TO agg_local AS SELECT events_local.chatbot_id, count() AS agg FROM events_local\nJOIN agg_local AS a USING (chatbot_id) GROUP BY events_local.chatbot_id',
  ], 'tables where tables go and as qualifiers; a column alias sharing a table\'s name is left alone');
  const insert = 'INSERT INTO agg SELECT chatbot_id, count() FROM events GROUP BY chatbot_id';
  t.same(flat(r, insert), [insert]);
  t.throws(() => r.render('CREATE MATERIALIZED VIEW v ENGINE = MergeTree ORDER BY x AS SELECT 1 AS x'), /needs TO/);
  t.same(flat(r, 'CREATE VIEW IF NOT EXISTS v AS SELECT * FROM events'), ['CREATE VIEW IF NOT EXISTS v ON CLUSTER main AS SELECT * FROM events']);
});

t.test('ALTER, DROP, TRUNCATE: ON CLUSTER after the name; column changes reach the Distributed table too', async (t) => {
  const r = createRenderer(cluster);
  r.render('CREATE TABLE events (chatbot_id String) ENGINE = MergeTree ORDER BY chatbot_id');
  t.same(flat(r, 'ALTER TABLE events ADD COLUMN IF NOT EXISTS a UInt8 AFTER chatbot_id, MODIFY COLUMN b String'), [
    'ALTER TABLE events_local ON CLUSTER main ADD COLUMN IF NOT EXISTS a UInt8 AFTER chatbot_id, MODIFY COLUMN b String',
    'ALTER TABLE events ON CLUSTER main ADD COLUMN IF NOT EXISTS a UInt8 AFTER chatbot_id, MODIFY COLUMN b String',
  ]);
  t.same(flat(r, "ALTER TABLE events MODIFY SETTING a = 'x', b = 'y'"), ["ALTER TABLE events_local ON CLUSTER main MODIFY SETTING a = 'x', b = 'y'"]);
  t.same(flat(r, 'ALTER TABLE events ADD INDEX IF NOT EXISTS i a TYPE minmax GRANULARITY 1'), ['ALTER TABLE events_local ON CLUSTER main ADD INDEX IF NOT EXISTS i a TYPE minmax GRANULARITY 1']);
  t.throws(() => r.render('ALTER TABLE events ADD COLUMN c UInt8, ADD INDEX j c TYPE minmax'), /mixes column changes/);
  t.same(flat(r, 'TRUNCATE TABLE events'), ['TRUNCATE TABLE events_local ON CLUSTER main']);
  t.same(flat(r, 'DROP TABLE IF EXISTS events'), ['DROP TABLE IF EXISTS events ON CLUSTER main', 'DROP TABLE IF EXISTS events_local ON CLUSTER main SYNC']);
  t.same(flat(r, 'DROP VIEW IF EXISTS some_mv'), ['DROP VIEW IF EXISTS some_mv ON CLUSTER main']);
  t.same(flat(r, 'ALTER TABLE other ADD COLUMN x UInt8'), ['ALTER TABLE other ON CLUSTER main ADD COLUMN x UInt8'], 'a table no migration created: as named');
  t.throws(() => r.render('RENAME TABLE events TO events_old'), /RENAME of the sharded table events/);
  t.throws(() => createRenderer({ cluster: 'a;b', database: 'x' }), /not an identifier/);
});

t.test('node-local state and statements marked single-node only do not run on a cluster', async (t) => {
  const r = createRenderer(cluster);
  for (const engine of ['Join(ANY, LEFT, k)', 'Memory', 'Set', 'EmbeddedRocksDB']) {
    t.match(r.render(`CREATE TABLE IF NOT EXISTS j_${engine.slice(0, 3)} (k String) ENGINE = ${engine}`), [{ skipped: /node-local/ }], engine);
  }
  t.match(r.render("ALTER TABLE events UPDATE x = joinGet(concat({database:String}, '.j_Joi'), 'v', k) WHERE 1"), [{ skipped: /node-local table j_Joi/ }]);
  t.match(r.render('INSERT INTO j_Mem SELECT 1'), [{ skipped: /j_Mem/ }]);
  t.match(r.render('DROP TABLE IF EXISTS j_Set'), [{ skipped: /j_Set/ }]);
  t.match(r.render('-- single-node only: a backfill of rows a fresh cluster does not have\nINSERT INTO t SELECT 1'), [{ skipped: 'marked single-node only' }]);
  t.notOk(createRenderer().render('-- single-node only\nINSERT INTO t SELECT 1')[0].skipped, 'the marker is honoured on a cluster only');
});

t.test('whole-table mutations are flagged with the table queries name, in both renderings', async (t) => {
  const single = createRenderer();
  t.equal(single.render('ALTER TABLE events MATERIALIZE INDEX i SETTINGS mutations_sync = 2')[0].mutates, 'events');
  t.equal(single.render('ALTER TABLE events\n-- why\nUPDATE a = 1 WHERE 1')[0].mutates, 'events');
  t.equal(single.render('ALTER TABLE events DELETE WHERE 1')[0].mutates, 'events');
  t.equal(single.render('DELETE FROM events WHERE 1')[0].mutates, 'events');
  t.equal(single.render('ALTER TABLE events ADD COLUMN u UInt8')[0].mutates, undefined);
  t.equal(single.render('ALTER TABLE events MODIFY SETTING a = 1, b = 2')[0].mutates, undefined);
  const r = createRenderer(cluster);
  r.render('CREATE TABLE events (chatbot_id String) ENGINE = MergeTree ORDER BY chatbot_id');
  t.match(r.render('ALTER TABLE events MATERIALIZE PROJECTION p'), [{ sql: 'ALTER TABLE events_local ON CLUSTER main MATERIALIZE PROJECTION p', mutates: 'events' }]);
});

t.test('on a cluster the repository\'s migrations keep no node-local state', async (t) => {
  const rendered = renderMigrations(readMigrations(), cluster).flatMap((m) => m.statements.filter((s) => !s.skipped));
  for (const s of rendered) {
    t.notMatch(s.sql, /ENGINE\s*=\s*(Join|Memory|Set|Buffer|EmbeddedRocksDB)\b/, 'no node-local engine');
    if (/^\s*(CREATE|ALTER|DROP|TRUNCATE)\b/im.test(s.sql.replace(/--.*$/gm, ''))) t.match(s.sql, / ON CLUSTER main\b/, 'DDL on the cluster');
    t.notMatch(s.sql, /ENGINE = (Replacing|Aggregating|Summing)?MergeTree\b/, 'every MergeTree replicated');
  }
  t.match(ledgerDdl('main'), /ON CLUSTER main[\s\S]*ReplicatedReplacingMergeTree\('\/clickhouse\/tables\/all\/\{database\}\/schema_migrations'/, 'one ledger for every node of every shard');
});

t.test('a statement the cluster form cannot express stops the rendering with a coded error naming the file', async (t) => {
  const migrations = [{ version: 1, name: 'x', file: '0001_x.sql', checksum: '', textChecksum: '', statements: ['CREATE TABLE t (a UInt8) ENGINE = MergeTree ORDER BY a', 'RENAME TABLE t TO u'] }];
  t.throws(() => renderMigrations(migrations, cluster), { code: 'CLICKHOUSE_005', message: /^Migration 0001_x\.sql, statement 2: .*RENAME of the sharded table t/ });
  t.equal(renderMigrations(migrations, { database: 'analytics' })[0].statements[1].sql, 'RENAME TABLE t TO u', 'one node: as written');
});

