import t from 'tap';
import fc from 'fast-check';
import { Partitioners, type PartitionerArgs } from 'kafkajs';
import { MemoizedDefaultPartitioner } from '../src/kafka/partitioner.js';

const metadata = (n: number): PartitionerArgs['partitionMetadata'] =>
  Array.from({ length: n }, (_, partitionId) => ({ partitionId, leader: 1, partitionErrorCode: 0, replicas: [1], isr: [1] }));

t.test('answers exactly as kafkajs DefaultPartitioner, key after key, also when the partition count changes', async (t) => {
  const memo = MemoizedDefaultPartitioner();
  const plain = Partitioners.DefaultPartitioner();
  fc.assert(fc.property(
    fc.array(fc.record({ topic: fc.constantFrom('events', 'dlq'), key: fc.string({ maxLength: 40 }), partitions: fc.integer({ min: 1, max: 12 }) }), { maxLength: 200 }),
    (sends) => sends.every(({ topic, key, partitions }) => {
      const args = { topic, partitionMetadata: metadata(partitions), message: { key, value: 'v' } };
      // Asked twice: the second answer comes from the memo.
      return memo(args) === plain(args) && memo(args) === plain(args);
    }),
  ));
  t.pass('property held');
});

t.test('an explicit partition wins, as in the default', async (t) => {
  const memo = MemoizedDefaultPartitioner();
  const args = { topic: 'events', partitionMetadata: metadata(6), message: { key: 'tok_a', value: 'v' } };
  const hashed = memo(args);
  const explicit = (hashed + 1) % 6;
  t.equal(memo({ ...args, message: { ...args.message, partition: explicit } }), explicit);
  t.equal(memo(args), hashed, 'and the key keeps its own partition');
});
