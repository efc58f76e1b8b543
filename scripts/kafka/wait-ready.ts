// Used by run.sh: exits 0 once every broker of the cluster is listed in a metadata answer
// from the bootstrap address AND a consumer group finds its coordinator (a fresh cluster has
// none until it has created __consumer_offsets, seconds later: clients that join a group or
// read its offsets before that fail); 1 after five minutes (a 3-node start on a busy 2-core
// machine has taken over two).
import { Kafka, logLevel } from 'kafkajs';

const [bootstrap, expected] = process.argv.slice(2);
const want = Number(expected);
const deadline = Date.now() + 300_000;
const kafka = new Kafka({
  clientId: 'kafka-run-wait', brokers: bootstrap.split(','), logLevel: logLevel.NOTHING,
  connectionTimeout: 1000, requestTimeout: 3000, retry: { retries: 0 },
});

let last = 'no answer';
while (Date.now() < deadline) {
  const admin = kafka.admin();
  try {
    await admin.connect();
    const cluster = await admin.describeCluster();
    if (cluster.brokers.length >= want && cluster.controller !== null) {
      last = 'no group coordinator yet';
      await admin.describeGroups(['kafka-run-wait']);
      process.exit(0);
    }
    last = `${cluster.brokers.length} of ${want} brokers registered`;
  } catch (err) {
    last = (err as Error).message;
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
  await new Promise((r) => setTimeout(r, 500));
}
console.error(`kafka did not become ready: ${last}`);
process.exit(1);
