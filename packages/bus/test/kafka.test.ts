import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { loadConfig } from '@chatlytics/core';
import { BusUnavailableError, BusUsageError, createEventBus, createKafkaBus } from '../src/index.js';
import { message, testLog } from './helpers.js';

// No broker needed: these cover configuration and the outage path.
const base = loadConfig({}).kafka;

t.test('a Kafka bus without brokers is a usage error', async (t) => {
  t.throws(() => createKafkaBus({ kafka: { ...base, brokers: [] }, log: testLog }), BusUsageError);
});

t.test('an unreachable cluster turns publish, ping and lag into retriable BUS_001 errors', async (t) => {
  // Port 1 on loopback refuses connections at once; the bounded retries then give up.
  const bus = createKafkaBus({ kafka: { ...base, brokers: ['127.0.0.1:1'], createTopics: false, idempotent: false }, log: testLog });
  t.teardown(() => bus.close());
  const err = await bus.publish([message('down', 'tok_outage1', 1)]).then(() => undefined, (e: unknown) => e);
  t.ok(err instanceof BusUnavailableError, 'publish rejects with BusUnavailableError');
  t.equal((err as BusUnavailableError).code, 'BUS_001');
  t.equal((err as BusUnavailableError).retriable, true);
  t.equal((err as BusUnavailableError).statusCode, 503);
  await t.rejects(bus.ping(), BusUnavailableError);
  await t.rejects(bus.lag(), BusUnavailableError);
});

t.test('createEventBus picks Kafka when brokers are configured, else the embedded log in DATA_DIR/bus', async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bus-create-'));
  t.teardown(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const kafka = await createEventBus(loadConfig({ KAFKA_BROKERS: '127.0.0.1:1', DATA_DIR: dataDir }), testLog);
  t.equal(kafka.kind, 'kafka', 'created without connecting');
  await kafka.close();
  t.notOk(fs.existsSync(path.join(dataDir, 'bus')), 'no embedded files in Kafka mode');
  const embedded = await createEventBus(loadConfig({ DATA_DIR: dataDir }), testLog);
  t.teardown(() => embedded.close());
  t.equal(embedded.kind, 'embedded');
  t.ok(fs.existsSync(path.join(dataDir, 'bus', 'events')), 'log lives in DATA_DIR/bus');
});
