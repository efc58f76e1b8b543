import { Kafka, logLevel, type LogEntry } from 'kafkajs';
import type { Config, Logger } from '@chatlytics/core';
import { BusUnavailableError, BusUsageError } from '../errors.js';

export interface KafkaTimeouts {
  /** TCP connect to one broker (default 1 s: a broker that does not answer in 1 s is down for ingest's purposes). */
  connectionMs: number;
  /** One broker request, e.g. a produce waiting for all in-sync replicas (default 5 s). */
  requestMs: number;
  /** Hard bound on one publish() including kafkajs' own retries (default 5 s), so an outage becomes a 503 quickly. */
  publishMs: number;
}

export const DEFAULT_TIMEOUTS: KafkaTimeouts = { connectionMs: 1000, requestMs: 5000, publishMs: 5000 };

/** Bounded retries: 3 attempts after the first, 100 ms doubling to at most 1 s (kafkajs adds jitter). */
const RETRY = { retries: 3, initialRetryTime: 100, maxRetryTime: 1000 };

function logCreator(log: Logger) {
  const kafkaLog = log.child({ component: 'kafkajs' });
  return () => ({ namespace, level, log: entry }: LogEntry) => {
    const { message, timestamp: _ts, logger: _logger, ...extra } = entry;
    const obj = { namespace, ...extra };
    if (level === logLevel.ERROR) kafkaLog.error(obj, message);
    else if (level === logLevel.WARN) kafkaLog.warn(obj, message);
    else if (level === logLevel.INFO) kafkaLog.info(obj, message);
    else kafkaLog.debug(obj, message);
  };
}

export function createKafkaClient(kafka: Config['kafka'], clientId: string, timeouts: KafkaTimeouts, log: Logger): Kafka {
  if (!kafka.brokers?.length) throw new BusUsageError('createKafkaBus needs at least one broker (KAFKA_BROKERS)');
  return new Kafka({
    clientId,
    brokers: kafka.brokers,
    connectionTimeout: timeouts.connectionMs,
    requestTimeout: timeouts.requestMs,
    enforceRequestTimeout: true,
    retry: RETRY,
    logLevel: logLevel.INFO,
    logCreator: logCreator(log),
  });
}

/** Everything a Kafka call can throw becomes the coded, retriable BusUnavailableError. */
export function toUnavailable(err: unknown, what: string): BusUnavailableError {
  if (err instanceof BusUnavailableError) return err;
  return new BusUnavailableError(`kafka ${what} failed: ${(err as Error)?.message ?? String(err)}`, { cause: err });
}

/** Rejects with BusUnavailableError when `promise` takes longer than `ms`. */
export function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new BusUnavailableError(`kafka ${what} timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}
