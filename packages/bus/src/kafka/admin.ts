import type { Admin, ConfigResourceTypes, Kafka } from 'kafkajs';
import type { Config, Logger } from '@chatlytics/core';
import type { LagReport } from '../types.js';
import { toUnavailable, withDeadline, type KafkaTimeouts } from './client.js';
import { oldestUncommittedAt, type PartitionPosition } from './lag.js';

const TOPICS_READY_MS = 30_000;
/** ConfigResourceTypes.TOPIC: Node's ESM import does not see that CommonJS export of kafkajs. */
const TOPIC_RESOURCE = 2 as ConfigResourceTypes;

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
   * KAFKA_REPLICATION_FACTOR replicas, retention.ms from KAFKA_RETENTION_HOURS); existing topics
   * are left as they are, but one keeping events for less than configured is reported.
   */
  ensureTopics(): Promise<void> {
    if (!this.cfg.createTopics) {
      this.topicsReady ??= this.reportTopicSettings([this.cfg.topic, this.cfg.dlqTopic]).catch((err) => {
        this.log.warn({ err }, 'could not read the topics\' retention (describeConfigs)');
      });
      return Promise.resolve();
    }
    this.topicsReady ??= (async () => {
      const admin = await this.client();
      const topics = [this.cfg.topic, this.cfg.dlqTopic];
      const { partitions: numPartitions, replicationFactor } = this.cfg;
      const configEntries = [{ name: 'retention.ms', value: String(this.configuredRetentionMs) }];
      const created = await admin.createTopics({
        waitForLeaders: false,
        timeout: this.timeouts.requestMs,
        topics: topics.map((topic) => ({ topic, numPartitions, replicationFactor, configEntries })),
      });
      await this.leadersElected(admin, topics);
      this.log.info({ topics, created, numPartitions, replicationFactor, retentionHours: this.cfg.retentionHours }, 'kafka topics ensured');
      await this.reportTopicSettings(topics);
    })().catch((err) => {
      this.topicsReady = undefined;
      throw toUnavailable(err, 'createTopics (set KAFKA_CREATE_TOPICS=false when the topics are managed elsewhere)');
    });
    return this.topicsReady;
  }

  private get configuredRetentionMs(): number {
    return this.cfg.retentionHours * 3_600_000;
  }

  /** retention.ms of a topic; null when unlimited (-1). */
  async retentionMs(topic: string): Promise<number | null> {
    const admin = await this.client();
    const { resources } = await admin.describeConfigs({
      includeSynonyms: false,
      resources: [{ type: TOPIC_RESOURCE, name: topic, configNames: ['retention.ms'] }],
    });
    const value = Number(resources[0]?.configEntries.find((e) => e.configName === 'retention.ms')?.configValue);
    return Number.isFinite(value) && value >= 0 ? value : null;
  }

  /**
   * Start-up report of settings an existing topic may lack: a retention shorter than
   * KAFKA_RETENTION_HOURS (an outage longer than it loses events), a partition count other
   * than KAFKA_PARTITIONS (only logged: adding partitions moves user tokens, see the runbook).
   */
  private async reportTopicSettings(topics: string[]): Promise<void> {
    const admin = await this.client();
    const meta = await admin.fetchTopicMetadata({ topics });
    for (const topic of topics) {
      const retentionMs = await this.retentionMs(topic);
      if (retentionMs !== null && retentionMs < this.configuredRetentionMs) {
        this.log.warn({ topic, retentionHours: retentionMs / 3_600_000, configuredHours: this.cfg.retentionHours },
          'kafka topic keeps events for less than KAFKA_RETENTION_HOURS: a consumer outage longer than that loses them (kafka-configs --alter --add-config retention.ms=…)');
      }
      const partitions = meta.topics.find((t) => t.name === topic)?.partitions.length;
      if (partitions !== undefined && partitions !== this.cfg.partitions) {
        this.log.info({ topic, partitions, configuredPartitions: this.cfg.partitions }, 'kafka topic has another partition count than KAFKA_PARTITIONS (left as it is)');
      }
    }
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

  /** Per partition: the group's committed offset (the log start when never committed or already deleted) and the end. */
  private async positions(): Promise<PartitionPosition[]> {
    const admin = await this.client();
    const [ends, committed] = await Promise.all([
      this.topicOffsets(this.cfg.topic),
      admin.fetchOffsets({ groupId: this.cfg.groupId, topics: [this.cfg.topic] }),
    ]);
    const byPartition = new Map((committed[0]?.partitions ?? []).map((p) => [p.partition, BigInt(p.offset)]));
    return ends.map((p) => {
      const c = byPartition.get(p.partition) ?? -1n; // -1 = the group never committed here
      return { partition: p.partition, next: c > p.low ? c : p.low, high: p.high };
    }).sort((a, b) => a.partition - b.partition);
  }

  /** Sum over partitions of high watermark − committed offset (log start when nothing is committed yet). */
  async lag(): Promise<number> {
    try {
      return await withDeadline((async () => {
        let lag = 0n;
        for (const p of await this.positions()) if (p.high > p.next) lag += p.high - p.next;
        return Number(lag);
      })(), this.timeouts.requestMs, 'lag');
    } catch (err) {
      throw toUnavailable(err, 'lag');
    }
  }

  async lagReport(): Promise<LagReport> {
    try {
      return await withDeadline((async () => {
        const positions = await this.positions();
        const oldest = await oldestUncommittedAt(positions, (time) => this.offsetsForTime(this.cfg.topic, time));
        // Read every time: an operator raising retention.ms during an outage sees the ratio drop.
        const retentionMs = await this.retentionMs(this.cfg.topic);
        return {
          partitions: positions.map((p) => ({ partition: p.partition, messages: Number(p.high > p.next ? p.high - p.next : 0n) })),
          oldestUncommittedAt: oldest,
          retentionMs,
        };
      })(), 2 * this.timeouts.requestMs, 'lag report');
    } catch (err) {
      throw toUnavailable(err, 'lag report');
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
