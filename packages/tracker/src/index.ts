/**
 * @chatlytics/tracker: the same code as /tracker.js, as an ES module. `startTracker` wires
 * it to the page; `createTrackerCore` is the host-independent logic (for other hosts and tests).
 */
export { startTracker, browserEnv } from './browser.js';
export { createTrackerCore, BATCHING, type TrackerCore } from './core.js';
export { EventQueue, memoryStore, QUEUE_LIMITS } from './queue.js';
export { uuidv7, newToken, abGroupOf, retryDelay, parseRetryAfter, BACKOFF, TOKEN_PATTERN } from './ids.js';
export type * from './types.js';
