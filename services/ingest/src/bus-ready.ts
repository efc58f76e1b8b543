import type { EventBus } from '@chatlytics/bus';
import type { Logger } from '@chatlytics/core';

const FIRST_DELAY_MS = 500;
const MAX_DELAY_MS = 5_000;

/**
 * Waits until the bus can take a publish (Kafka: topics created, partition leaders answering,
 * producer id issued) so that no tracking request pays for that set-up: left to the first
 * publish, it counts against that publish's 5 s deadline (a 503 on a slow fresh cluster). A broker that is not there yet is waited for (compose starts services together);
 * SIGTERM still ends the process, as no shutdown handler is installed before listening.
 */
export async function waitForBus(bus: EventBus, log: Logger, sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))): Promise<void> {
  for (let attempt = 1, delay = FIRST_DELAY_MS; ; attempt++, delay = Math.min(delay * 2, MAX_DELAY_MS)) {
    const started = Date.now();
    try {
      await bus.prepare();
      log.info({ bus: bus.kind, attempt, ms: Date.now() - started }, 'bus ready');
      return;
    } catch (err) {
      log.warn({ err, attempt, retryInMs: delay }, 'bus not ready; ingest waits before listening');
      await sleep(delay);
    }
  }
}
