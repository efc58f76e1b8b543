import t from 'tap';
import { chatbotBatches } from '../src/backfill-token-ids.js';
import { batchedFillName, readMigrations } from '../src/migrations.js';

/** The batched fill's grouping (backfill-token-ids.ts): in order, at most the bound, a larger chatbot alone. */
t.test('chatbots grouped in order up to the bound', async (t) => {
  const c = (chatbot_id: string, rows: number) => ({ chatbot_id, rows });
  t.same(chatbotBatches([], 10), [], 'nothing to fill: no batch');
  t.same(chatbotBatches([c('a', 4), c('b', 6), c('c', 1)], 10), [['a', 'b'], ['c']], 'a batch fills up to the bound, inclusive');
  t.same(chatbotBatches([c('a', 3), c('big', 25), c('b', 2), c('c', 9)], 10), [['a'], ['big'], ['b'], ['c']],
    'a chatbot over the bound is a batch alone, and the next one starts a new batch');
  t.same(chatbotBatches([c('a', 2), c('b', 2), c('c', 2)], 4), [['a', 'b'], ['c']], 'order kept');
});

/** The marker is a comment as the tokenizer reads it (the runner and the bench share batchedFillName). */
t.test('the batched-fill marker', async (t) => {
  t.equal(batchedFillName('-- batched fill: token_ids\nINSERT INTO token_ids SELECT 1'), 'token_ids', 'a line comment before the statement');
  t.equal(batchedFillName('INSERT INTO t\n  -- batched fill:  token_ids  \nSELECT 1'), 'token_ids', 'inside it, spaces around the name');
  t.equal(batchedFillName("SELECT '\n-- batched fill: token_ids\n'"), undefined, 'inside a string literal: not a marker');
  t.equal(batchedFillName('/* -- batched fill: token_ids */ SELECT 1'), undefined, 'inside a block comment: not a marker');
  t.equal(batchedFillName('-- batched fill: token_ids, and more\nSELECT 1'), undefined, 'a comment that only begins like one: not a marker');
  t.equal(batchedFillName('SELECT 1'), undefined, 'none');
  const marked = readMigrations().find((m) => m.version === 130)!.statements.filter((s) => batchedFillName(s) === 'token_ids');
  t.equal(marked.length, 3, "migration 0130's three fill statements carry it");
});
