import t from 'tap';
import { chatbotBatches } from '../src/backfill-token-ids.js';

/** The batched fill's grouping (backfill-token-ids.ts): in order, at most the bound, a larger chatbot alone. */
t.test('chatbots grouped in order up to the bound', async (t) => {
  const c = (chatbot_id: string, rows: number) => ({ chatbot_id, rows });
  t.same(chatbotBatches([], 10), [], 'nothing to fill: no batch');
  t.same(chatbotBatches([c('a', 4), c('b', 6), c('c', 1)], 10), [['a', 'b'], ['c']], 'a batch fills up to the bound, inclusive');
  t.same(chatbotBatches([c('a', 3), c('big', 25), c('b', 2), c('c', 9)], 10), [['a'], ['big'], ['b'], ['c']],
    'a chatbot over the bound is a batch alone, and the next one starts a new batch');
  t.same(chatbotBatches([c('a', 2), c('b', 2), c('c', 2)], 4), [['a', 'b'], ['c']], 'order kept');
});
