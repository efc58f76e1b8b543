/**
 * The event bus: one interface, two implementations (Kafka via kafkajs, embedded durable log).
 * Both give at-least-once delivery; exactly-once *in effect* is the consumer's job
 * (ClickHouse insert deduplication tokens + event_id dedup).
 */
export interface BusMessage {
  /** Partitioning key (the user token): keeps one user's events in order. */
  key: string;
  /** The serialized event (JSON bytes). */
  value: Buffer;
}

export interface ConsumedMessage {
  partition: number;
  /** Decimal string, as Kafka reports offsets (they can exceed 2^53). */
  offset: string;
  key: string | null;
  value: Buffer;
  /** Time the bus accepted the message, ms since epoch. */
  timestamp: number;
}

export interface ConsumedBatch {
  /** Which stream: the main events topic or the dead-letter topic. */
  stream: 'events' | 'dead-letter';
  partition: number;
  messages: ConsumedMessage[];
  /**
   * Kafka: true on this member's first batch of the partition since the group (re)assigned it
   * (until that batch is accepted, its redeliveries too). The previous owner may have written
   * rows past the committed offset without committing them, so treat the batch as one after
   * a restart (the consumer fences it: looks its event ids up before inserting).
   */
  firstAfterAssignment?: boolean;
  /**
   * Aborted when the bus stops waiting for this delivery (Kafka: a heartbeat failed, the
   * partition is being taken away). The handler's work that has not started yet should not
   * start: the partition's next owner delivers these messages again.
   */
  abandoned?: AbortSignal;
}

/**
 * Resolving commits the batch's offsets; rejecting leaves them uncommitted and the batch is
 * delivered again (after a back-off). Batches of one partition are delivered in order and
 * never concurrently with each other.
 */
export type BatchHandler = (batch: ConsumedBatch) => Promise<void>;

export interface ConsumerHandle {
  /** Stop fetching, wait for the in-flight handler calls to settle (commit or not), leave the group. */
  stop(): Promise<void>;
}

export interface ReplayOptions {
  stream: 'events' | 'dead-letter';
  /** Messages accepted by the bus at or after this time (ms since epoch). */
  fromTime: number;
  handler: BatchHandler;
}

export interface LagReport {
  /** Per partition of the events stream: messages published and not yet committed by the group. */
  partitions: { partition: number; messages: number }[];
  /**
   * Bus time (ms since epoch) of the oldest message the group has not committed, i.e. the oldest
   * acknowledged event not yet stored; null when nothing waits.
   */
  oldestUncommittedAt: number | null;
  /**
   * How long the bus keeps a message before deleting it, consumed or not (Kafka's retention.ms);
   * null when it never deletes unconsumed messages (the embedded log) or keeps them forever.
   */
  retentionMs: number | null;
}

export interface EventBus {
  readonly kind: 'kafka' | 'embedded';
  /** Resolves only once every message is durable (Kafka acks=-1 / fsync'd log). Rejects with a retriable BusUnavailableError otherwise. */
  publish(messages: BusMessage[]): Promise<void>;
  /**
   * Everything a first publish would otherwise set up: Kafka creates the topics (when
   * KAFKA_CREATE_TOPICS), waits until each partition has a leader answering, and connects the
   * producer (an idempotent one gets its producer id). The embedded log is ready once open.
   * Rejects with BusUnavailableError; calling again retries.
   */
  prepare(): Promise<void>;
  /** Same guarantee, on the dead-letter stream. */
  publishDeadLetter(messages: BusMessage[]): Promise<void>;
  /** Join the consumer group and deliver batches to `handler` until stopped. */
  consume(handler: BatchHandler): Promise<ConsumerHandle>;
  /** Re-read a stream from a point in time up to its current end, without touching group offsets. Returns messages delivered. */
  replay(opts: ReplayOptions): Promise<number>;
  /** Messages published to the events stream but not yet committed by the consumer group. */
  lag(): Promise<number>;
  /** The lag per partition and in time, for the consumer's metrics and /ready. */
  lagReport(): Promise<LagReport>;
  /** Throws when the bus is not reachable. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
