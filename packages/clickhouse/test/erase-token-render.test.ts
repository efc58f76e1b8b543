/**
 * An erasure's statements (clickhouse/queries/privacy/erase_token.sql) as a cluster runs them:
 * each mutation on the `_local` table ON CLUSTER (a Distributed table takes no mutation), the
 * re-insert of the orders' first purchases through the Distributed table; on one node as written.
 * And the digest and prefilter the consumer and ClickHouse compute alike.
 */
import t from 'tap';
import { deleteOnShards, erasedTokenDigest, erasedTokenPrefilter, rendererAfterMigrations, splitStatements, sqlFile } from '../src/index.js';

t.test('on a cluster every mutation runs on the _local tables ON CLUSTER', async (t) => {
  const render = rendererAfterMigrations({ cluster: 'shop', database: 'analytics' });
  // As eraseTokenRows runs them: rendered, and a DELETE FROM on every shard's local table.
  const rendered = splitStatements(sqlFile('privacy/erase_token')).flatMap((s) => render(s)).filter((r) => !r.skipped)
    .map((r) => deleteOnShards(r.sql, 'shop').replace(/^\s*--.*$/gm, '').trim());
  const mutations = rendered.filter((s) => /^\s*ALTER TABLE/i.test(s));
  t.equal(mutations.length, 10);
  for (const s of mutations) t.match(s, /^\s*ALTER TABLE \w+_local ON CLUSTER shop (UPDATE|DELETE)/, s.slice(0, 60));
  const deletes = rendered.filter((s) => /^DELETE FROM/i.test(s));
  t.equal(deletes.length, 1);
  t.match(deletes[0], /^DELETE FROM events_local ON CLUSTER shop IN PARTITION \{month:UInt32\} WHERE /, 'events: a lightweight DELETE on every shard');
  const purge = splitStatements(sqlFile('privacy/purge_deleted_rows')).flatMap((s) => render(s)).filter((r) => !r.skipped).map((r) => r.sql.replace(/^\s*--.*$/gm, '').trim());
  t.same(purge.map((s) => s.replace(/\s+/g, ' ').replace(/;$/, '')), ['ALTER TABLE events_local ON CLUSTER shop APPLY DELETED MASK SETTINGS mutations_sync = 2'], 'the purge rewrites the shards\' parts');
  t.ok(rendered.some((s) => /INSERT INTO order_first_purchases\b/.test(s)), 'the insert keeps the Distributed name');
});

t.test('the retention run\'s mutations too', async (t) => {
  const render = rendererAfterMigrations({ cluster: 'shop', database: 'analytics' });
  const rendered = splitStatements(sqlFile('privacy/retention_delete')).flatMap((s) => render(s)).filter((r) => !r.skipped)
    .map((r) => r.sql.replace(/^\s*--.*$/gm, '').trim());
  const mutations = rendered.filter((s) => /^ALTER TABLE/.test(s));
  t.equal(mutations.length, 7);
  for (const s of mutations) t.match(s, /^ALTER TABLE \w+_local ON CLUSTER shop DELETE/, s.slice(0, 60));
});

t.test('on one node the statements run as written', async (t) => {
  const render = rendererAfterMigrations({ database: 'analytics' });
  const statements = splitStatements(sqlFile('privacy/erase_token'));
  t.same(statements.flatMap((s) => render(s)).map((r) => r.sql), statements);
});

t.test('digest: hex SHA-256 of chatbot, a zero byte and the token; prefilter: 32-bit FNV-1a', async (t) => {
  t.match(erasedTokenDigest('bot', 'tok_12345678'), /^[0-9a-f]{64}$/);
  t.not(erasedTokenDigest('bot', 'tok_12345678'), erasedTokenDigest('bot2', 'tok_12345678'), 'per chatbot');
  t.equal(erasedTokenPrefilter(''), 0x811c9dc5, 'FNV offset basis');
  t.equal(erasedTokenPrefilter('a'), 0xe40c292c, 'FNV-1a of "a"');
});
