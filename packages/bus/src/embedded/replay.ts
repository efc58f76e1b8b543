import type { Logger } from '@chatlytics/core';
import type { ReplayOptions } from '../types.js';
import { deliverUntilAccepted, type BackoffOptions } from '../delivery.js';
import type { SegmentedLog } from './log.js';
import type { BatchLimits } from './consumer.js';
import { LogReader } from './reader.js';

export interface EmbeddedReplayDeps {
  log: Logger;
  limits: BatchLimits;
  backoff: BackoffOptions;
  maxAttempts: number;
  signal: AbortSignal;
}

/**
 * Reads a stream from the first retained record with timestamp >= fromTime up to the end it
 * had when replay was called, with its own reader: the group's committed offset is untouched.
 */
export async function replayLog(stream: SegmentedLog, opts: ReplayOptions, deps: EmbeddedReplayDeps): Promise<number> {
  const end = stream.endOffset;
  const reader = new LogReader(stream, await stream.offsetForTime(opts.fromTime), deps.log);
  let delivered = 0;
  try {
    while (reader.nextOffset < end && !deps.signal.aborted) {
      const read = await reader.read({ maxRecords: deps.limits.maxBatchMessages, maxBytes: deps.limits.maxBatchBytes, endOffset: end });
      const messages = read.filter((m) => m.timestamp >= opts.fromTime);
      if (messages.length === 0) continue;
      const accepted = await deliverUntilAccepted(opts.handler, { stream: opts.stream, partition: 0, messages }, {
        backoff: deps.backoff, log: deps.log, signal: deps.signal, maxAttempts: deps.maxAttempts,
      });
      if (!accepted) break;
      delivered += messages.length;
    }
  } finally {
    await reader.close();
  }
  return delivered;
}
