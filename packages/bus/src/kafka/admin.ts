import type { Admin, Kafka } from 'kafkajs';
import type { Config, Logger } from '@chatlytics/core';
import { toUnavailable, withDeadline, type KafkaTimeouts } from './client.js';

const TOPICS_READY_MS = 30_000;

export interface PartitionOffsets { partition: number; low: bigint; high: bigint }

/** One lazily connected admin client: topic creation, lag and offsets. */
export class KafkaAdmin {
  private connecting?: Promise<Admin>;
  private topicsReady?: Promise<void>;

  constructor(
    private readonly kafka: Kafka,
    private readonly cfg: Config['kafka'],
    private readonly timeouts: KafkaTimeouts,
    private readonly log: Logger,
  ) {}

  async client(): Promise<Admin> {
    this.connecting ??= (async () => {
      const admin = this.kafka.admin();
      await admin.connect();
      return admin;
    })();
    try {
      return await this.connecting;
    } catch (err) {
      this.connecting = undefined; // the next call tries again
      throw toUnavailable(err, 'admin connect');
    }
  }

  /**
   * Creates both topics once when KAFKA_CREATE_TOPICS is on (KAFKA_PARTITIONS partitions,
   * KAFKA_REPLICATION_FACTOR replicas); existing topics are left as they are.
   */
  ensureTopics(): Promise<void> {
    if (!this.cfg.createTopics) return Promise.resolve();
    this.topicsReady ??= (async () => {
      const admin = await this.client();
      const topics = [this.cfg.topic, this.cfg.dlqTopic];
      const { partitions: numPartitions, replicationFactor } = this.cfg;
      const created = await admin.createTopics({
        waitForLeaders: false,
        timeout: this.timeouts.requestMs,
        topics: topics.map((topic) => ({ topic, numPartitions, replicationFactor })),
      });
      await this.leadersElected(admin, topics);
      this.log.info({ topics, created, numPartitions, replicationFactor }, 'kafka topics ensured');
    })().catch((err) => {
      this.topicsReady = undefined;
      throw toUnavailable(err, 'createTopics (set KAFKA_CREATE_TOPICS=false when the topics are managed elsewhere)');
    });
    return this.topicsReady;
  }

  /**
   * kafkajs' own waitForLeaders gives up on UNKNOWN_TOPIC_OR_PARTITION, which a KRaft broker
   * answers until the new topic's metadata has reached it, and a leader listed in metadata may
   * still answer NOT_LEADER_OR_FOLLOWER for a moment. Ready = every partition answers an
   * offsets request (what lag() and the producer need next).
   */
  private async leadersElected(admin: Admin, topics: string[]): Promise<void> {
    // A start-up step, once per process: a busy broker may take several seconds per new topic.
    // A publish waiting on it still gives up at its own deadline; the next one waits on the same wait.
    const deadline = Date.now() + TOPICS_READY_MS;
    for (;;) {
      try {
        const meta = await admin.fetchTopicMetadata({ topics });
        const waiting = meta.topics.filter((t) => t.partitions.length === 0 || t.partitions.some((p) => p.leader < 0));
        if (waiting.length > 0) throw new Error(`no leader yet for ${waiting.map((t) => t.name).join(', ')}`);
        await Promise.all(topics.map((topic) => admin.fetchTopicOffsets(topic)));
        return;
      } catch (err) {
        if (Date.now() >= deadline) throw new Error(`topics not ready within ${TOPICS_READY_MS} ms: ${(err as Error).message}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  async topicOffsets(topic: string): Promise<PartitionOffsets[]> {
    const admin = await this.client();
    const offsets = await admin.fetchTopicOffsets(topic);
    return offsets.map((p) => ({ partition: p.partition, low: BigInt(p.low), high: BigInt(p.high) }));
  }

  /** First offset per partition with a timestamp >= `time`; the high watermark when there is none. */
  async offsetsForTime(topic: string, time: number): Promise<Map<number, bigint>> {
    const admin = await this.client();
    const offsets = await admin.fetchTopicOffsetsByTimestamp(topic, time);
    return new Map(offsets.map((p) => [p.partition, BigInt(p.offset)]));
  }

  /** Sum over partitions of high watermark − committed offset (log start when nothing is committed yet). */
  async lag(): Promise<number> {
    try {
      return await withDeadline((async () => {
        const admin = await this.client();
        const [ends, committed] = await Promise.all([
          this.topicOffsets(this.cfg.topic),
          admin.fetchOffsets({ groupId: this.cfg.groupId, topics: [this.cfg.topic] }),
        ]);
        const byPartition = new Map((committed[0]?.partitions ?? []).map((p) => [p.partition, BigInt(p.offset)]));
        let lag = 0n;
        for (const p of ends) {
          const c = byPartition.get(p.partition) ?? -1n;
          const from = c >= 0n ? c : p.low; // -1 = the group never committed here
          if (p.high > from) lag += p.high - from;
        }
        return Number(lag);
      })(), this.timeouts.requestMs, 'lag');
    } catch (err) {
      throw toUnavailable(err, 'lag');
    }
  }

  async ping(): Promise<void> {
    try {
      await withDeadline((async () => { await (await this.client()).describeCluster(); })(), this.timeouts.requestMs, 'ping');
    } catch (err) {
      throw toUnavailable(err, 'ping');
    }
  }

  /** Best effort: replay's throwaway groups would otherwise linger until offsets.retention expires them. */
  async deleteGroup(groupId: string): Promise<void> {
    try {
      await (await this.client()).deleteGroups([groupId]);
    } catch (err) {
      this.log.debug({ err, groupId }, 'could not delete throwaway consumer group');
    }
  }

  async close(): Promise<void> {
    const connecting = this.connecting;
    this.connecting = undefined;
    const admin = await connecting?.catch(() => undefined);
    await admin?.disconnect();
  }
}
