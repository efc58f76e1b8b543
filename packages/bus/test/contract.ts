import type { Test } from 'tap';
import { BusUnavailableError, type EventBus } from '../src/index.js';
import { clockPast, Collector, idOf, message, payload } from './helpers.js';

/** An isolated place (directory, or topics + group) where a bus can be opened, closed and reopened. */
export interface ContractScope {
  open(): Promise<EventBus>;
}

/**
 * The one behavioural contract of EventBus, run against every implementation. Each case
 * gets a fresh scope, so cases never see each other's messages or offsets.
 */
export function runBusContract(t: Test, newScope: () => ContractScope): void {
  const runId = `r${Date.now().toString(36)}`;

  t.test('publish then consume delivers every message once, in per-key order; lag rises then falls to 0', async (t) => {
    const bus = await newScope().open();
    t.teardown(() => bus.close());
    t.equal(await bus.lag(), 0, 'empty stream has no lag');
    const keys = ['tok_alpha01', 'tok_bravo02', 'tok_charl03', 'tok_delta04', 'tok_echo005', 'tok_foxtr06'];
    for (let round = 0; round < 3; round++) {
      await bus.publish(Array.from({ length: 20 }, (_, i) => message(runId, keys[i % keys.length], round * 20 + i)));
    }
    t.equal(await bus.lag(), 60, 'lag counts published, uncommitted messages');

    const c = new Collector();
    const consumer = await bus.consume(c.handler);
    await c.until(60);
    await consumer.stop();
    t.equal(c.accepted.length, 60, 'no message delivered twice');
    t.equal(new Set(c.accepted.map(idOf)).size, 60, 'every message delivered');
    for (const key of keys) {
      const seqs = c.accepted.filter((m) => payload(m).key === key).map((m) => payload(m).seq);
      t.same(seqs, [...seqs].sort((a, b) => a - b), `order kept for ${key}`);
    }
    t.ok(c.accepted.every((m) => /^\d+$/.test(m.offset)), 'offsets are decimal strings');
    t.ok(c.accepted.every((m) => m.key === payload(m).key && m.timestamp > 0), 'key and timestamp delivered');
    t.ok(c.deliveries.every((b) => b.stream === 'events'));
    t.equal(await bus.lag(), 0, 'lag is 0 once everything is committed');
  });

  t.test('a rejected batch is redelivered unchanged and not committed meanwhile', async (t) => {
    const bus = await newScope().open();
    t.teardown(() => bus.close());
    // One key: one partition, so the five messages form the first batch.
    await bus.publish(Array.from({ length: 5 }, (_, i) => message(runId, 'tok_single1', i)));
    const c = new Collector();
    const lagDuringRejection: number[] = [];
    c.behaviour = async (_batch, attempt) => {
      if (attempt === 2) lagDuringRejection.push(await bus.lag());
      if (attempt <= 2) throw new Error(`simulated store failure #${attempt}`);
    };
    const consumer = await bus.consume(c.handler);
    await c.until(5);
    await consumer.stop();
    t.same(lagDuringRejection, [5], 'nothing committed after a rejection');
    const offsets = (i: number) => c.deliveries[i].messages.map((m) => m.offset);
    t.same(offsets(1), offsets(0), 'first redelivery carries the same messages');
    t.same(offsets(2), offsets(0), 'second redelivery too');
    t.same(c.deliveries[2].messages.map((m) => m.value.toString()), c.deliveries[0].messages.map((m) => m.value.toString()));
    t.same(c.accepted.map((m) => payload(m).seq), [0, 1, 2, 3, 4]);
    t.equal(await bus.lag(), 0);
  });

  t.test('a restarted bus resumes after the last commit', async (t) => {
    const scope = newScope();
    const first = await scope.open();
    await first.publish(Array.from({ length: 10 }, (_, i) => message(runId, `tok_user${i % 3}xx`, i)));
    const c1 = new Collector();
    const consumer = await first.consume(c1.handler);
    await c1.until(10);
    await consumer.stop();
    await first.close();

    const second = await scope.open();
    t.teardown(() => second.close());
    await second.publish(Array.from({ length: 10 }, (_, i) => message(runId, `tok_user${i % 3}xx`, 100 + i)));
    t.equal(await second.lag(), 10, 'commits of the first run survived the restart');
    const c2 = new Collector();
    const consumer2 = await second.consume(c2.handler);
    await c2.until(10);
    await consumer2.stop();
    t.same(c2.accepted.map((m) => payload(m).seq).sort((a, b) => a - b), Array.from({ length: 10 }, (_, i) => 100 + i),
      'only the messages published after the commit are delivered');
    t.equal(await second.lag(), 0);
  });

  t.test('replay from a time re-reads the stream without touching group offsets', async (t) => {
    const bus = await newScope().open();
    t.teardown(() => bus.close());
    await bus.publish(Array.from({ length: 5 }, (_, i) => message(runId, `tok_old${i}xxxx`, i)));
    await clockPast(Date.now());
    const from = Date.now();
    await bus.publish(Array.from({ length: 5 }, (_, i) => message(runId, `tok_new${i}xxxx`, 10 + i)));

    const c = new Collector();
    const n = await bus.replay({ stream: 'events', fromTime: from, handler: c.handler });
    t.equal(n, 5, 'replay reports what it delivered');
    t.same(c.accepted.map((m) => payload(m).seq).sort((a, b) => a - b), [10, 11, 12, 13, 14], 'only messages at or after fromTime');
    t.ok(c.accepted.every((m) => m.timestamp >= from));
    t.equal(await bus.lag(), 10, 'group offsets untouched');
  });

  t.test('dead letters are published to their own stream and read back with replay', async (t) => {
    const bus = await newScope().open();
    t.teardown(() => bus.close());
    const letters = Array.from({ length: 3 }, (_, i) => message(runId, `tok_dead${i}xxx`, i));
    await bus.publishDeadLetter(letters);
    t.equal(await bus.lag(), 0, 'dead letters are not events awaiting consumption');
    const c = new Collector();
    const n = await bus.replay({ stream: 'dead-letter', fromTime: 0, handler: c.handler });
    t.equal(n, 3);
    t.ok(c.deliveries.every((b) => b.stream === 'dead-letter'));
    t.same(c.accepted.map((m) => m.value.toString()).sort(), letters.map((m) => m.value.toString()).sort());
    const events = new Collector();
    t.equal(await bus.replay({ stream: 'events', fromTime: 0, handler: events.handler }), 0, 'events stream stays empty');
  });

  t.test('close is clean, even with a running consumer, and later calls fail as unavailable', async (t) => {
    const bus = await newScope().open();
    await bus.ping();
    await bus.prepare();
    await bus.prepare(); // once prepared, again is a no-op
    const c = new Collector();
    await bus.consume(c.handler);
    await bus.publish([message(runId, 'tok_closing1', 1)]);
    await c.until(1);
    await bus.close();
    await bus.close(); // idempotent
    const err = await bus.publish([message(runId, 'tok_closing1', 2)]).then(() => undefined, (e: unknown) => e);
    t.ok(err instanceof BusUnavailableError, 'publish after close is refused');
    t.equal((err as BusUnavailableError).code, 'BUS_001');
    t.equal((err as BusUnavailableError).retriable, true);
    await t.rejects(bus.ping(), BusUnavailableError);
    await t.rejects(bus.prepare(), BusUnavailableError);
    await t.rejects(bus.consume(c.handler), BusUnavailableError);
  });
}
