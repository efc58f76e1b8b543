import t from 'tap';
import { loadConfig } from '@chatlytics/core';
import { serverUnderTest } from '@chatlytics/core/testing';
import { createKafkaBus } from '../src/index.js';
import { runBusContract } from './contract.js';
import { testBackoff, testLog } from './helpers.js';

// Against a real broker (CI: scripts/kafka/run.sh) with the defaults: topics created at
// start-up, idempotent producer on.
const server = serverUnderTest('KAFKA_BROKERS');

// Cases run concurrently: each mostly waits for its group to form, not for CPU.
t.test('kafka bus contract', { skip: server.skip, jobs: 6 }, async (t) => {
  // Tests are entry points: the flags come from the environment like in production.
  const base = loadConfig(process.env).kafka;
  const run = `bus-contract-${process.pid}-${Date.now().toString(36)}`;
  let n = 0;
  runBusContract(t, () => {
    const scope = `${run}-${n++}`;
    // 6 partitions (not the default 24): each case creates its own topics, on one shared broker.
    const kafka = { ...base, topic: scope, dlqTopic: `${scope}-dlq`, groupId: `${scope}-group`, partitions: 6 };
    return {
      async open() {
        const bus = createKafkaBus({ kafka, log: testLog, retryBackoff: testBackoff, sessionTimeoutMs: 6000 });
        // Topics first (as a service does at start-up), so no case's first publish also pays for them.
        await bus.lag();
        return bus;
      },
    };
  });
});
