import { setTimeout } from 'node:timers/promises';
import type { ClickHouseEngine, QueryParams } from './types.js';

/**
 * How a privacy job (an erasure, a retention run) shares the machine with the statistics: after
 * each of its statements that took PACED_FROM_MS or more it waits `pace` times as long as the
 * statement took (BACKGROUND_PACE by default). On a big shop the statistics then run beside it a
 * third of the time instead of all of it, and the job takes three times as long (README.md,
 * "Personal data": the bounds and the figures). A shorter statement (every one on a small shop)
 * is not worth a wait.
 */
export const BACKGROUND_PACE = 2;
const PACED_FROM_MS = 50;

/** `engine.command`, paced as above (`sleep`: a test's recorder). */
export function pacedCommand(engine: ClickHouseEngine, pace: number = BACKGROUND_PACE, sleep: (ms: number) => Promise<unknown> = setTimeout) {
  return async (sql: string, params?: QueryParams): Promise<void> => {
    const started = performance.now();
    await engine.command(sql, params);
    const took = performance.now() - started;
    if (pace > 0 && took >= PACED_FROM_MS) await sleep(took * pace);
  };
}
