import { CompressionTypes, type Kafka, type Producer, type RecordMetadata, type TopicMessages } from 'kafkajs';
import type { Config, Logger } from '@chatlytics/core';
import type { BusMessage } from '../types.js';
import { BusUnavailableError } from '../errors.js';
import type { BusMetrics } from '../metrics.js';
import { toUnavailable, withDeadline, type KafkaTimeouts } from './client.js';
import type { KafkaAdmin } from './admin.js';
import { MemoizedDefaultPartitioner, recordingPartitioner, type AssignedPartitions } from './partitioner.js';

type Stream = 'events' | 'dead-letter';

interface PendingPublish {
  topic: string;
  stream: Stream;
  messages: BusMessage[];
  bytes: number;
  started: bigint;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/** Raw bytes per send: stays under the brokers' 1 MB default record-batch limit per partition even uncompressed. */
const MAX_SEND_BYTES = 1024 * 1024;

interface ConnectedProducer { producer: Producer; assigned: AssignedPartitions }

/**
 * The partitions the send assigned messages to that no broker acknowledged. kafkajs 2.2.4
 * keeps, across its internal retries of one send, the answers of the brokers that succeeded;
 * when a failed partition's new leader is such a broker, the retry sends it nothing and the
 * send still resolves (tulios/kafkajs#1303, reproduced in test/kafka-send-guard.test.ts).
 * That is a 200 for events never written, so an incomplete answer fails the send instead.
 */
export function unacknowledged(assigned: AssignedPartitions, acks: RecordMetadata[]): string[] {
  const missing: string[] = [];
  for (const [topic, partitions] of assigned) {
    for (const partition of partitions) {
      if (!acks.some((a) => a.topicName === topic && a.partition === partition && a.errorCode === 0)) missing.push(`${topic}/${partition}`);
    }
  }
  return missing;
}

/**
 * Publishes with acks=-1 (all in-sync replicas), gzip, keyed by user token. Concurrent
 * publish() calls are coalesced and sent ONE request at a time: kafkajs' idempotent producer
 * breaks (OUT_OF_ORDER_SEQUENCE_NUMBER, tulios/kafkajs#598) under concurrent sends, and
 * coalescing gives the broker bigger, better-compressed batches anyway.
 */
export class KafkaPublisher {
  private queue: PendingPublish[] = [];
  private sending = false;
  private producer?: Promise<ConnectedProducer>;
  private closed = false;
  private idleWaiters: (() => void)[] = [];

  constructor(
    private readonly kafka: Kafka,
    private readonly cfg: Config['kafka'],
    private readonly admin: KafkaAdmin,
    private readonly timeouts: KafkaTimeouts,
    private readonly log: Logger,
    private readonly metrics: BusMetrics,
  ) {}

  publish(stream: Stream, messages: BusMessage[]): Promise<void> {
    if (this.closed) return Promise.reject(new BusUnavailableError('kafka bus is closed'));
    if (messages.length === 0) return Promise.resolve();
    const topic = stream === 'events' ? this.cfg.topic : this.cfg.dlqTopic;
    let bytes = 0;
    for (const m of messages) bytes += m.key.length + m.value.length;
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ topic, stream, messages, bytes, started: process.hrtime.bigint(), resolve, reject });
      void this.drain();
    });
  }

  /** Connects ahead of the first send (an idempotent producer's InitProducerId included). */
  async prepare(): Promise<void> {
    if (this.closed) throw new BusUnavailableError('kafka bus is closed');
    try {
      await withDeadline(this.connected(), this.timeouts.publishMs, 'producer connect');
    } catch (err) {
      this.discardProducer();
      throw toUnavailable(err, 'producer connect');
    }
  }

  private connected(): Promise<ConnectedProducer> {
    this.producer ??= (async () => {
      // Per producer: a discarded producer still retrying in the background records into its own set.
      const assigned: AssignedPartitions = new Map();
      const producer = this.kafka.producer({
        idempotent: this.cfg.idempotent,
        // kafkajs would otherwise retry an idempotent send forever; a bounded retry turns an outage into a 503.
        retry: { retries: 3, initialRetryTime: 100, maxRetryTime: 1000 },
        // murmur2, as the Java client: the same token lands on the same partition whatever the
        // producer (remembered per token: see partitioner.ts), noting what each send assigned.
        createPartitioner: recordingPartitioner(MemoizedDefaultPartitioner, assigned),
      });
      await producer.connect();
      return { producer, assigned };
    })();
    return this.producer;
  }

  /** After a failed or timed-out send the producer's sequence state is unknown: start a fresh one. */
  private discardProducer(): void {
    const old = this.producer;
    this.producer = undefined;
    void old?.then((p) => p.producer.disconnect()).catch(() => undefined);
  }

  private takeGroup(): PendingPublish[] {
    let bytes = 0;
    let n = 0;
    while (n < this.queue.length && (n === 0 || bytes + this.queue[n].bytes <= MAX_SEND_BYTES)) bytes += this.queue[n++].bytes;
    return this.queue.splice(0, n);
  }

  private async drain(): Promise<void> {
    if (this.sending) return;
    this.sending = true;
    try {
      while (this.queue.length > 0) await this.send(this.takeGroup());
    } finally {
      this.sending = false;
      for (const w of this.idleWaiters.splice(0)) w();
    }
  }

  private async send(group: PendingPublish[]): Promise<void> {
    const byTopic = new Map<string, TopicMessages>();
    for (const p of group) {
      const entry = byTopic.get(p.topic) ?? { topic: p.topic, messages: [] };
      for (const m of p.messages) entry.messages.push({ key: m.key, value: m.value });
      byTopic.set(p.topic, entry);
    }
    try {
      await withDeadline((async () => {
        await this.admin.ensureTopics();
        const { producer, assigned } = await this.connected();
        // One send at a time (drain), so the set holds this send's partitions only.
        assigned.clear();
        const acks = await producer.sendBatch({
          acks: -1, timeout: this.timeouts.requestMs, compression: CompressionTypes.GZIP, topicMessages: [...byTopic.values()],
        });
        const missing = unacknowledged(assigned, acks);
        if (missing.length > 0) throw new BusUnavailableError(`kafka acknowledged the send without partitions ${missing.join(', ')}`);
      })(), this.timeouts.publishMs, 'publish');
    } catch (err) {
      this.discardProducer();
      const reason = toUnavailable(err, 'publish');
      this.log.warn({ err, messages: group.reduce((n, p) => n + p.messages.length, 0) }, 'kafka publish failed');
      for (const p of group) p.reject(reason);
      return;
    }
    const now = process.hrtime.bigint();
    for (const p of group) {
      this.metrics.published.inc({ bus: 'kafka', stream: p.stream }, p.messages.length);
      this.metrics.publishSeconds.observe({ bus: 'kafka', stream: p.stream }, Number(now - p.started) / 1e9);
      p.resolve();
    }
  }

  /** Refuses new publishes, lets queued ones finish (or fail), then disconnects. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.sending) await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    const producer = this.producer;
    this.producer = undefined;
    await (await producer?.catch(() => undefined))?.producer.disconnect();
  }
}
